import AuditCLI
import AuditCore
import AuditExamples

AuditCommandLine(registry: .examples, catalog: .builtIn).main()

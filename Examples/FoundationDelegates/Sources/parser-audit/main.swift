// The feed's runner: auditctl's command line with the document view and the feed readers
// registered. `swift run parser-audit record --scenario feed.json --delegate feed.v1 --db audit.sqlite`.
import AuditCLI
import AuditCore
import ParserKit

AuditCommandLine(registry: .feeds, catalog: catalog, programName: "parser-audit").main()

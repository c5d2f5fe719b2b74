// The user's own runner: auditctl's command line with the slider and its delegates registered.
// `swift run slider-audit record --scenario volume.json --delegate volume.v1 --db audit.sqlite`.
import AuditCLI
import AuditCore
import SliderKit

AuditCommandLine(registry: .volume, catalog: catalog, programName: "slider-audit").main()

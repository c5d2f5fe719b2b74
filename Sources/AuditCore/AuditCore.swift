// AuditCore is the package's one import: it re-exports its layers, each a target of its own so that
// the compiler keeps their direction (the Development article draws the graph).
@_exported import AuditInvestigate
@_exported import AuditKit
@_exported import AuditModel
@_exported import AuditReplay
@_exported import AuditStorage

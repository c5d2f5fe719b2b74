// The site's runner: auditctl's command line with the fetch view and the site readers
// registered, and the loopback site served by this process on a port of its own (recordings keep
// paths only, so a session recorded by one run replays in another).
// `swift run fetch-audit record --scenario fetch.json --delegate fetch.v1 --db audit.sqlite`.
import AuditCLI
import AuditCore
import FetchKit
import Foundation

let server: LoopbackServer
do {
    server = try LoopbackServer()
} catch {
    FileHandle.standardError.write(Data("fetch-audit: cannot start the loopback server: \(error)\n".utf8))
    exit(2)
}
FetchView.origin = server.origin
AuditCommandLine(registry: .fetchers, catalog: fetchCatalog, programName: "fetch-audit").main()

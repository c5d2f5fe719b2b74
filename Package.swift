// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "auditctl",
    products: [
        .library(name: "AuditCore", targets: ["AuditCore"]),
        .library(name: "AuditCLI", targets: ["AuditCLI"]),
        .library(name: "AuditTesting", targets: ["AuditTesting"]),
        .executable(name: "auditctl", targets: ["auditctl"]),
        .executable(name: "my-auditctl", targets: ["MyAuditctl"]),
        .executable(name: "auditbench", targets: ["auditbench"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .executableTarget(name: "EmbedFiles"),
        .plugin(
            name: "EmbedFilesPlugin",
            capability: .buildTool(),
            dependencies: ["EmbedFiles"]
        ),
        .target(
            name: "AuditCore",
            dependencies: ["CSQLite"],
            plugins: ["EmbedFilesPlugin"]
        ),
        .target(name: "AuditCLI", dependencies: ["AuditCore"]),
        .target(name: "AuditTesting", dependencies: ["AuditCore"]),
        .executableTarget(name: "auditctl", dependencies: ["AuditCLI"]),
        // An example of a user's own runner: their delegates registered, the CLI's entry point called.
        .executableTarget(name: "MyAuditctl", dependencies: ["AuditCLI", "AuditCore"]),
        // Measures every performance figure against a baseline from the same run (README: Performance).
        .executableTarget(name: "auditbench", dependencies: ["AuditCore", "CSQLite"]),
        .target(name: "SharedTestSupport", dependencies: ["AuditCore"], path: "Tests/SharedTestSupport"),
        .testTarget(name: "AuditCoreTests", dependencies: ["AuditCore", "AuditTesting", "SharedTestSupport"]),
        .testTarget(name: "AuditCLITests", dependencies: ["AuditCLI", "AuditCore", "SharedTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

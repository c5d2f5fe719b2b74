// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "auditctl",
    products: [
        .library(name: "AuditCore", targets: ["AuditCore"]),
        .library(name: "AuditCLI", targets: ["AuditCLI"]),
        .executable(name: "auditctl", targets: ["auditctl"]),
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
        .executableTarget(name: "auditctl", dependencies: ["AuditCLI"]),
        .testTarget(name: "AuditCoreTests", dependencies: ["AuditCore"]),
        .testTarget(name: "AuditCLITests", dependencies: ["AuditCLI", "AuditCore"]),
    ],
    swiftLanguageModes: [.v6]
)

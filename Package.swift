// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "auditctl",
    products: [
        .library(name: "AuditCore", targets: ["AuditCore"]),
        .executable(name: "auditctl", targets: ["auditctl"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .executableTarget(name: "EmbedMigrations"),
        .plugin(
            name: "EmbedMigrationsPlugin",
            capability: .buildTool(),
            dependencies: ["EmbedMigrations"]
        ),
        .target(
            name: "AuditCore",
            dependencies: ["CSQLite"],
            plugins: ["EmbedMigrationsPlugin"]
        ),
        .executableTarget(name: "auditctl", dependencies: ["AuditCore"]),
        .testTarget(name: "AuditCoreTests", dependencies: ["AuditCore"]),
        .testTarget(name: "AuditctlEndToEndTests", dependencies: ["AuditCore"]),
    ],
    swiftLanguageModes: [.v6]
)

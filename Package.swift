// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "auditctl",
    // Synchronization (Mutex, Atomic) needs macOS 15 where there is one; Linux needs no minimum.
    platforms: [.macOS(.v15)],
    products: [
        // AuditCore and the layers it re-exports: one product, so the API check compares each layer.
        .library(
            name: "AuditCore",
            targets: ["AuditCore", "AuditModel", "AuditStorage", "AuditKit", "AuditReplay", "AuditInvestigate"]),
        .library(name: "AuditCLI", targets: ["AuditCLI"]),
        .library(name: "AuditTesting", targets: ["AuditTesting"]),
        .library(name: "AuditExamples", targets: ["AuditExamples"]),
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
        // The library's layers, bottom to top; each imports only those below it (the Development
        // article draws the graph). AuditCore re-exports them all: users import AuditCore alone.
        // Shared vocabulary: values, callback descriptors, answer flags, replay modes, SHA-256.
        .target(name: "AuditModel"),
        // The SQLite store: schema and migrations, sessions, events, import, export, merge, prune.
        .target(name: "AuditStorage", dependencies: ["AuditModel", "CSQLite"], plugins: ["EmbedFilesPlugin"]),
        // The widget kit and what audits it: widgets, their delegates and callback tables, the
        // scenario format and widget kinds, the recorder.
        .target(name: "AuditKit", dependencies: ["AuditModel", "AuditStorage"]),
        // Replay in both modes, batches and noise runs, the differ, behaviour checks.
        .target(name: "AuditReplay", dependencies: ["AuditModel", "AuditStorage", "AuditKit", "CSQLite"]),
        // Reading sessions: search, report, coverage, minimize, explore, the HTML page.
        .target(name: "AuditInvestigate", dependencies: ["AuditModel", "AuditStorage", "AuditKit", "AuditReplay"]),
        .target(
            name: "AuditCore",
            dependencies: ["AuditModel", "AuditStorage", "AuditKit", "AuditReplay", "AuditInvestigate"]
        ),
        // The demo's checkout screen: its delegates (checkout.v1, checkout.v2) and embedded scenario.
        .target(name: "AuditExamples", dependencies: ["AuditCore"], plugins: ["EmbedFilesPlugin"]),
        // The command line as a library: a runner passes its own delegates and catalog, and adds commands
        // of its own (auditctl adds the demo).
        .target(name: "AuditCLI", dependencies: ["AuditCore"]),
        .target(name: "AuditTesting", dependencies: ["AuditCore"]),
        .executableTarget(name: "auditctl", dependencies: ["AuditCLI", "AuditCore", "AuditExamples"]),
        // An example of a user's own runner: their delegates registered, the CLI's entry point called.
        .executableTarget(
            name: "my-auditctl", dependencies: ["AuditCLI", "AuditCore", "AuditExamples"], path: "Sources/MyAuditctl"),
        // Measures every performance figure against a baseline from the same run (the Performance article).
        .executableTarget(name: "auditbench", dependencies: ["AuditCore", "AuditExamples", "CSQLite"]),
        .target(
            name: "SharedTestSupport", dependencies: ["AuditCore", "AuditExamples"], path: "Tests/SharedTestSupport"),
        .testTarget(
            name: "AuditCoreTests", dependencies: ["AuditCore", "AuditExamples", "AuditTesting", "SharedTestSupport"]),
        .testTarget(
            name: "AuditCLITests", dependencies: ["AuditCLI", "AuditCore", "AuditExamples", "SharedTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

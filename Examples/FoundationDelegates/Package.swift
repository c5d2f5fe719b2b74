// swift-tools-version:6.0
import PackageDescription

// Delegates nobody here wrote: Foundation's own `XMLParserDelegate`, driven by the real
// `XMLParser`, and `URLSessionTaskDelegate` / `URLSessionDataDelegate`, driven by a real
// `URLSession` against a loopback server, audited out of tree. The root package is a dependency by path, as an app's would be.
let package = Package(
    name: "FoundationDelegates",
    products: [
        .library(name: "ParserKit", targets: ["ParserKit"]),
        .executable(name: "parser-audit", targets: ["parser-audit"]),
        .library(name: "FetchKit", targets: ["FetchKit"]),
        .executable(name: "fetch-audit", targets: ["fetch-audit"]),
    ],
    dependencies: [
        .package(name: "auditctl", path: "../..")
    ],
    targets: [
        .target(name: "ParserKit", dependencies: [.product(name: "AuditCore", package: "auditctl")]),
        .executableTarget(
            name: "parser-audit",
            dependencies: [
                "ParserKit",
                .product(name: "AuditCLI", package: "auditctl"),
                .product(name: "AuditCore", package: "auditctl"),
            ]),
        .target(name: "FetchKit", dependencies: [.product(name: "AuditCore", package: "auditctl")]),
        .executableTarget(
            name: "fetch-audit",
            dependencies: [
                "FetchKit",
                .product(name: "AuditCLI", package: "auditctl"),
                .product(name: "AuditCore", package: "auditctl"),
            ]),
        .testTarget(
            name: "ParserKitTests",
            dependencies: [
                "ParserKit",
                "FetchKit",
                .product(name: "AuditCore", package: "auditctl"),
                .product(name: "AuditTesting", package: "auditctl"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version:6.0
import PackageDescription

// A user's own widget (a Slider), audited with every feature of auditctl, out of tree: the root
// package is a dependency by path, exactly as an app would depend on it.
let package = Package(
    name: "CustomWidget",
    products: [
        .library(name: "SliderKit", targets: ["SliderKit"]),
        .executable(name: "slider-audit", targets: ["slider-audit"]),
    ],
    dependencies: [
        .package(name: "auditctl", path: "../..")
    ],
    targets: [
        .target(name: "SliderKit", dependencies: [.product(name: "AuditCore", package: "auditctl")]),
        .executableTarget(
            name: "slider-audit",
            dependencies: [
                "SliderKit",
                .product(name: "AuditCLI", package: "auditctl"),
                .product(name: "AuditCore", package: "auditctl"),
            ]),
        .testTarget(
            name: "SliderKitTests",
            dependencies: [
                "SliderKit",
                .product(name: "AuditCore", package: "auditctl"),
                .product(name: "AuditTesting", package: "auditctl"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)

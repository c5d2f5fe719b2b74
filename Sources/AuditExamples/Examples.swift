import AuditCore
import Foundation

/// The example scenarios shipped in `Examples/`, embedded in the build.
public enum Examples {
    /// Example name (the file name without `.json`) to the file's text.
    public static let scenarios: [String: Data] = Dictionary(
        uniqueKeysWithValues: embeddedExampleFiles.map { ($0.file, Data(base64Encoded: $0.base64) ?? Data()) })

    /// The checkout example, parsed.
    public static func checkout() throws(ScenarioError) -> Scenario {
        try Scenario(data: scenarios["checkout"] ?? Data(), catalog: .builtIn)
    }

    /// The browser example (a web view and its navigation delegate), parsed.
    public static func browser() throws(ScenarioError) -> Scenario {
        try Scenario(data: scenarios["browser"] ?? Data(), catalog: .builtIn)
    }
}

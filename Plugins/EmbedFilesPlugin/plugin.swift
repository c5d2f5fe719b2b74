import Foundation
import PackagePlugin

/// Turns `Migrations/*.sql` (for AuditCore) or `Examples/*.json` (for AuditExamples) into Swift
/// source compiled into the target, so the schema and the shipped example travel inside the binary
/// and are never looked up beside it.
@main
struct EmbedFilesPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folders = target.name == "AuditExamples" ? ["Examples": "json"] : ["Migrations": "sql"]
        let files = try folders.flatMap { folder, fileExtension in
            try FileManager.default
                .contentsOfDirectory(
                    at: context.package.directoryURL.appending(path: folder), includingPropertiesForKeys: nil
                )
                .filter { $0.pathExtension == fileExtension }
        }
        .sorted { $0.path < $1.path }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedFiles.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) migrations and examples",
                executable: try context.tool(named: "EmbedFiles").url,
                arguments: [output.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output]
            )
        ]
    }
}

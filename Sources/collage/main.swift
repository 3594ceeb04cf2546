import CollageKit
import CollageRender
import Foundation

// Both set process-wide state, so they come first, while there is one thread.
ImageEngine.startForCommandLine()
// A misspelt setting is said, not silently ignored.
if let problem = Workspace.prepareCommandLineProcess() { Output.printError("collage: warning: \(problem)") }
exit(RootCommand.main(Array(CommandLine.arguments.dropFirst())))

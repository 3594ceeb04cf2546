import CollageRender
import Foundation
import Stickers

// Both set process-wide state, so they come first, while there is one thread.
ImageEngine.startForCommandLine()
SubjectModel.prepareCommandLineProcess()
// A misspelt setting is said, not silently ignored.
if let problem = SubjectModel.Kernels.settingProblem() { Output.printError("collage: warning: \(problem)") }
exit(RootCommand.main(Array(CommandLine.arguments.dropFirst())))

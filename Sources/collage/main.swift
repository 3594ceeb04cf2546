import CollageRender
import Foundation
import Stickers

// Both set process-wide state, so they come first, while there is one thread.
ImageEngine.startForCommandLine()
SubjectModel.prepareCommandLineProcess()
exit(RootCommand.main(Array(CommandLine.arguments.dropFirst())))

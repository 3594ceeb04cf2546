import CollageRender
import Foundation

ImageEngine.startForCommandLine()
exit(RootCommand.main(Array(CommandLine.arguments.dropFirst())))

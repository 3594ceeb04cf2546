import Foundation

exit(RootCommand.main(Array(CommandLine.arguments.dropFirst())))

import CollageLicence
import Foundation

// The seller's tool: makes a signing key pair and signs licences with it. It is not part of the
// `collage` users install; the private key it reads stays in a file the seller keeps.

let usage = """
    collage-licence — make Collage Premium licence keys (for the seller, not for users).

    Usage:
      collage-licence keygen --out FILE
          Makes a signing key, writes its private half to FILE (mode 600, never overwritten)
          and prints the public half to list in Sources/CollageLicence/TrustedKey+BuiltIn.swift.
      collage-licence sign --key FILE --licensee "NAME <EMAIL>" [--id ID] [--issued YYYY-MM-DD]
          Prints a licence key signed with the key in FILE. The id defaults to a random
          CL-XXXXXXXX, the date to today (UTC).
      collage-licence verify KEY
          Checks a key as this build of Collage would (a debug build also trusts the test key).
    """

func fail(_ message: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("collage-licence: \(message)\n".utf8))
    exit(code)
}

func option(_ name: String, in arguments: [String]) -> String? {
    guard let index = arguments.firstIndex(of: name) else { return nil }
    guard index + 1 < arguments.count else { fail("\(name) needs a value", code: 64) }
    return arguments[index + 1]
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "keygen":
    guard let path = option("--out", in: arguments) else { fail("keygen needs --out FILE", code: 64) }
    guard let key = SigningKey.generate() else { fail("libsodium could not make a key") }
    // Created only if absent, and owner-only from the first byte: a private key is never
    // written over another, nor readable by anyone else even for a moment.
    do {
        try LicenceStore.writeDurably(Data(key.fileContents.utf8), to: URL(fileURLWithPath: path))
    } catch {
        fail("cannot write \(path) (\(error.localizedDescription)); an existing file is never overwritten", code: 73)
    }
    print("key id:     \(key.id)")
    print("public key: \(key.publicKey)")
    print("Trust it in Sources/CollageLicence/TrustedKey+BuiltIn.swift: TrustedKey(publicKey: \"\(key.publicKey)\")")
case "sign":
    guard let path = option("--key", in: arguments) else { fail("sign needs --key FILE", code: 64) }
    guard let licensee = option("--licensee", in: arguments) else { fail("sign needs --licensee", code: 64) }
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { fail("cannot read \(path)", code: 66) }
    guard let key = SigningKey(fileContents: text) else { fail("\(path) is not a signing key file", code: 65) }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd"
    let id =
        option("--id", in: arguments)
        ?? "CL-" + String(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(8))
    do {
        let details = try LicenceDetails(
            id: id, licensee: licensee, issued: option("--issued", in: arguments) ?? formatter.string(from: Date()))
        guard let licence = key.issue(details) else { fail("libsodium could not sign the licence") }
        print(licence)
    } catch {
        fail(error.description, code: 65)
    }
case "verify":
    guard arguments.count == 2 else { fail("verify takes one key", code: 64) }
    do {
        let licence = try Licence(key: arguments[1])
        print("valid: \(licence.id) for \(licence.licensee), issued \(licence.issued), key \(licence.signingKeyID)")
    } catch {
        fail(error.description, code: 65)
    }
case "--help", "-h", nil:
    print(usage)
default:
    fail("unknown command '\(arguments[0])'\n\(usage)", code: 64)
}

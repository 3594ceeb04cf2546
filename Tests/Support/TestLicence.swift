import CollageLicence
import Foundation

/// Licences signed with the tests' key (`Tests/Fixtures/licence/test-signing.key`), which debug
/// builds trust and release builds do not.
public enum TestLicence {
    /// The tests' signing key.
    public static let signingKey: SigningKey = {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/licence/test-signing.key")
        guard let text = try? String(contentsOf: file, encoding: .utf8), let key = SigningKey(fileContents: text) else {
            preconditionFailure("the test signing key is missing or damaged: \(file.path)")
        }
        return key
    }()

    /// The path of the tests' signing key file (for the `collage-licence` tool).
    public static var signingKeyFile: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/licence/test-signing.key")
    }

    /// A valid Collage Premium key, or one for `product`.
    public static func key(
        licensee: String = "Ada Lovelace <ada@example.com>", id: String = "CL-TEST-0001",
        product: String = LicenceKey.product
    ) -> String {
        // The details are fixed and valid, so this cannot throw.
        guard let details = try? LicenceDetails(product: product, id: id, licensee: licensee, issued: "2026-12-02"),
            let key = signingKey.issue(details)
        else {
            preconditionFailure("the test licence could not be signed")
        }
        return key
    }

    /// A configuration folder (`XDG_CONFIG_HOME`) whose `collage/licence.key` holds a valid key.
    public static func unlockedConfig(in folder: URL) throws -> URL {
        let config = folder.appendingPathComponent("config-unlocked")
        try LicenceStore(folder: config.appendingPathComponent("collage")).add(key())
        return config
    }
}

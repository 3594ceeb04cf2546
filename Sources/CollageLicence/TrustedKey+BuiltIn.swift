extension TrustedKey {
    /// The keys this build trusts: the seller's, and in debug builds (the tests') also the test
    /// key whose private half lives with the tests. A release build never trusts the test key,
    /// so a licence made with it unlocks nothing that anyone ships.
    public static let builtIn: [TrustedKey] = {
        var keys = [seller]
        #if DEBUG
            keys.append(test)
        #endif
        return keys.compactMap { $0 }
    }()

    /// The seller's key (id 3cfab81e): its private half is kept by the seller, never in the repository.
    static let seller = TrustedKey(publicKey: "V31zfwUbeUTD8vD9nPORDjAxT2nHZ-ZZQJQ9bttI190")

    #if DEBUG
        /// The tests' key (id c1ba6085); its private half is `Tests/Fixtures/licence/test-signing.key`.
        static let test = TrustedKey(publicKey: "rMwyG4KpkS7gRdEBVzoAjO0BlcX9QL-Mqdkf60ksslQ")
    #endif
}

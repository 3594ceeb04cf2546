import CollageLibrary
import Foundation

/// A phone or tablet paired over the home network.
public typealias PairedDevice = CollageLibrary.PairedDevice
/// A device just paired, with the credential its cookie carries.
public typealias NewDevice = CollageLibrary.NewDevice

/// The devices paired with this library (`collage serve --lan`): pairing, recognising, listing
/// and revoking them. What may pair, and when, is the server's to decide.
extension Workspace {
    /// Pairs a device named `name` (printable, at most 80 characters; kept as given otherwise).
    public func pairDevice(named name: String) throws(Failure) -> NewDevice {
        try reading { () throws(LibraryError) in try library.pairDevice(named: name) }
    }

    /// The device a cookie's credential opens, or `nil` for a revoked, made-up or foreign one.
    public func device(withCredential credential: String) throws(Failure) -> PairedDevice? {
        try reading { () throws(LibraryError) in try library.device(withCredential: credential) }
    }

    /// Every paired device, most recently seen first.
    public func devices() throws(Failure) -> [PairedDevice] {
        try reading { () throws(LibraryError) in try library.devices() }
    }

    /// Notes that a device was just seen.
    public func deviceSeen(_ id: String) throws(Failure) {
        try reading { () throws(LibraryError) in try library.deviceSeen(id) }
    }

    /// Revokes a device, at once, for every server on this library.
    /// - Throws: `.notFound` when no device has `id`.
    public func revokeDevice(_ id: String) throws(Failure) {
        try reading { () throws(LibraryError) in try library.revokeDevice(id) }
    }
}

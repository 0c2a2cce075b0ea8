import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The model the URL stories decode (the seed's `SomeModel`).
struct Article: Decodable {
    let id: Int
    let title: String

    /// A request for one article as JSON, served without a network by a `data:` URL.
    static let request = URLRequest(url: URL(string: "data:application/json," + json)!)

    /// `{"id":1,"title":"Understanding Combine"}`, percent-encoded for a URL.
    private static let json = "%7B%22id%22%3A1%2C%22title%22%3A%22Understanding%20Combine%22%7D"
}

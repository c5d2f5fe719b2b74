import Foundation
import Glibc

/// A tiny HTTP/1.1 server on the loopback interface, for auditing real `URLSession` traffic: it
/// listens on 127.0.0.1 on a port the system picks, answers one request per connection, and
/// closes each connection after its response (`Connection: close`, with a `Content-Length`), so
/// a client never waits for more than the server sends.
///
/// The site (`LoopbackServer.routes`):
/// - `/old`: a 302 redirect to `/page.html`;
/// - `/page.html`: an HTML page;
/// - `/private`: a page behind Basic authentication (`reader` / `opensesame`), a 401 challenge
///   for the realm `audit` without them;
/// - `/song.mp3`: a small binary response, `audio/mpeg`;
/// - anything else: 404.
///
/// One thread accepts and serves the connections one after another; requests from one client
/// come one at a time. The server stops when released or `stop()` is called. Linux only (Glibc).
public final class LoopbackServer: Sendable {
    /// The user and password `/private` accepts.
    public static let user = "reader"
    public static let password = "opensesame"
    /// The bytes `/song.mp3` serves: an ID3 header, then 32 bytes of every eighth value.
    public static let song: [UInt8] = Array("ID3".utf8) + [4, 0, 0, 0, 0, 0] + (0..<32).map { UInt8($0 * 8) }
    /// The page `/page.html` and `/private` serve.
    public static let page = "<!doctype html><title>Hello</title><p>Hello from the loopback server.</p>\n"

    /// The port the server listens on.
    public let port: UInt16
    private let listener: Int32

    /// The server's origin, `http://127.0.0.1:PORT`.
    public var origin: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Starts listening on 127.0.0.1, on a port the system picks, and serving on a thread of its own.
    public init() throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw ServerError("socket", errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(socket, 16) == 0 else {
            let error = ServerError("bind", errno)
            close(socket)
            throw error
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        listener = socket
        let thread = Thread { [socket] in Self.serve(socket) }
        thread.name = "loopback-server"
        thread.start()
    }

    deinit { stop() }

    /// Stops accepting connections.
    public func stop() { shutdown(listener, Int32(SHUT_RDWR)) }

    /// Accepts connections until the listening socket is shut down.
    private static func serve(_ listener: Int32) {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                close(listener)
                return
            }
            respond(on: connection)
            close(connection)
        }
    }

    /// Reads one request's head and writes its response.
    private static func respond(on connection: Int32) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !received.containsHeadEnd {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return }
            received += buffer[0..<count]
        }
        let head = String(decoding: received, as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.first?.split(separator: " ") ?? []
        let path = requestLine.count > 1 ? String(requestLine[1]) : "/"
        let authorization = lines.dropFirst().first { $0.lowercased().hasPrefix("authorization:") }
            .map { $0.dropFirst("authorization:".count).trimmingCharacters(in: .whitespaces) }
        let response = routes(path: path, authorization: authorization)
        var bytes = Array("HTTP/1.1 \(response.status) \(response.reason)\r\n".utf8)
        for (name, value) in response.headers + [
            ("Content-Length", "\(response.body.count)"), ("Connection", "close"),
        ] {
            bytes += Array("\(name): \(value)\r\n".utf8)
        }
        bytes += Array("\r\n".utf8) + response.body
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            sent += count
        }
    }

    /// The response to `path`, given the request's `Authorization` header.
    static func routes(path: String, authorization: String?) -> Response {
        let credentials = Data("\(user):\(password)".utf8).base64EncodedString()
        switch path {
        case "/old":
            return Response(302, "Found", headers: [("Location", "/page.html")], body: [])
        case "/page.html":
            return Response(200, "OK", headers: [("Content-Type", "text/html; charset=utf-8")], body: Array(page.utf8))
        case "/private" where authorization == "Basic \(credentials)":
            return Response(200, "OK", headers: [("Content-Type", "text/html; charset=utf-8")], body: Array(page.utf8))
        case "/private":
            return Response(
                401, "Unauthorized",
                headers: [("WWW-Authenticate", #"Basic realm="audit""#), ("Content-Type", "text/plain")],
                body: Array("who are you?\n".utf8))
        case "/song.mp3":
            return Response(200, "OK", headers: [("Content-Type", "audio/mpeg")], body: song)
        default:
            return Response(
                404, "Not Found", headers: [("Content-Type", "text/plain")], body: Array("no such page\n".utf8))
        }
    }

    /// One response: its status line, headers and body.
    struct Response {
        var status: Int
        var reason: String
        var headers: [(String, String)]
        var body: [UInt8]

        init(_ status: Int, _ reason: String, headers: [(String, String)], body: [UInt8]) {
            (self.status, self.reason, self.headers, self.body) = (status, reason, headers, body)
        }
    }
}

/// A socket call that failed, with its `errno`.
public struct ServerError: Error, CustomStringConvertible {
    public let call: String
    public let code: Int32

    init(_ call: String, _ code: Int32) { (self.call, self.code) = (call, code) }

    public var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
}

extension [UInt8] {
    /// Whether the bytes hold the blank line that ends an HTTP head.
    fileprivate var containsHeadEnd: Bool {
        count >= 4
            && indices.dropLast(3).contains {
                self[$0] == 13 && self[$0 + 1] == 10 && self[$0 + 2] == 13 && self[$0 + 3] == 10
            }
    }
}

@testable import CardGateway
import Foundation
import Testing

/// The configuration loader and `JSONValue.parse` read JSON with a one-pass reader; `JSONValue.decodedByFoundation` (JSONDecoder) is the
/// reference. Every document must give the same value, or be left to the reference (nil from the reader).
@Suite("Configuration: the one-pass JSON reader reads as JSONDecoder does")
struct ConfigurationJSONTests {
    static func read(_ text: String) -> JSONValue? {
        Array(text.utf8).withUnsafeBufferPointer { ConfigurationJSON.read($0) }
    }

    static let documents = [
        #"{}"#, #"[]"#, #"{"a":1}"#, #" { "a" : [ 1 , 2.5 , -3e2 , 0 , -0.0 , 1E+2 , 12345678901234567890 ] } "#,
        #"{"s":"plain","e":"q\"b\\s\/n\nt\tr\rb\bf\fu\u00e9\u20AC\ud83d\ude00","empty":""}"#,
        #"{"t":true,"f":false,"n":null,"nested":{"deep":[{"x":[[]]}]}}"#, #""top-level string""#, "42", "true", "null",
        #"{"providers":{"eu":{"kind":"fake","timeoutSeconds":5}},"routes":[{"when":{"bin":"40000000-40001249"},"use":"eu"}]}"#,
        "{\"ünïcode key\":\"välue €\"}", "\n\t{\"a\":\r\n1}\n",
    ]

    static let refused = [
        "", " ", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "[01]", "[-]", "[1.]", "[.5]", "[1e]", "[+1]",
        "[\"\\x\"]", "[\"\\u12\"]", "[\"\\ud800\"]", "[\"tab\tinside\"]", "tru", "nul", "[1] [2]", "{\"a\":1}x", "[1e400]",
        "{\"a\":1,\"a\":2}", "\u{FEFF}{}", "[NaN]", "[Infinity]",
    ]

    @Test("documents both read give the same value")
    func sameValues() throws {
        for text in Self.documents {
            let reference = try JSONValue.decodedByFoundation(Data(text.utf8))
            #expect(Self.read(text) == reference, "\(text)")
            #expect(try ConfigurationJSON.parse(Data(text.utf8)) == reference, "\(text)")
        }
    }

    @Test("what the reader refuses goes to JSONDecoder, whose verdict stands")
    func refusedGoToTheReference() {
        for text in Self.refused {
            #expect(Self.read(text) == nil, "\(text.debugDescription)")
            let reference = try? JSONValue.decodedByFoundation(Data(text.utf8))
            let ours = try? ConfigurationJSON.parse(Data(text.utf8))
            #expect(ours == reference, "\(text.debugDescription)")
        }
    }

    @Test("invalid UTF-8 in a string is refused")
    func invalidUTF8() {
        let bytes: [UInt8] = Array("{\"a\":\"".utf8) + [0xC3, 0x28] + Array("\"}".utf8)
        #expect(bytes.withUnsafeBufferPointer { ConfigurationJSON.read($0) } == nil)
        #expect((try? ConfigurationJSON.parse(Data(bytes))) == (try? JSONValue.decodedByFoundation(Data(bytes))))
    }
}

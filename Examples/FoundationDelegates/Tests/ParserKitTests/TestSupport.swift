import ParserKit
import Testing

import AuditModel
import AuditStorage
import Foundation

/// The delegate of a `TableView`: the scroll callbacks it inherits, and the table's own. Every
/// method is optional: the extension below supplies UIKit-style defaults and marks them, so the
/// audit records "not implemented, default used".
///
/// A table view keeps its delegate in `ScrollView.delegate`. A delegate there that adopts only
/// `ScrollViewDelegate` hears the scroll callbacks, and the table takes the defaults below for the
/// rest, as UIKit does for a delegate that does not respond to a selector.
public protocol TableViewDelegate: ScrollViewDelegate {
    /// Return false to veto: the tapped row is neither highlighted nor selected.
    func tableView(_ tableView: TableView, shouldHighlightRowAt indexPath: IndexPath) -> Bool
    /// Return `indexPath` to select the tapped row, another index path to select that row
    /// instead, or nil to select nothing.
    func tableView(_ tableView: TableView, willSelectRowAt indexPath: IndexPath) -> IndexPath?
    func tableView(_ tableView: TableView, didSelectRowAt indexPath: IndexPath)
    /// Return `indexPath` to let the selected row go; anything else keeps it, and the row the
    /// user tapped is then not selected (a table view holds one selected row).
    func tableView(_ tableView: TableView, willDeselectRowAt indexPath: IndexPath) -> IndexPath?
    func tableView(_ tableView: TableView, didDeselectRowAt indexPath: IndexPath)
}

extension TableViewDelegate {
    public func tableView(_ tableView: TableView, shouldHighlightRowAt indexPath: IndexPath) -> Bool {
        TableView.tableCallbacks.shouldHighlight.unimplemented(indexPath)
    }

    public func tableView(_ tableView: TableView, willSelectRowAt indexPath: IndexPath) -> IndexPath? {
        TableView.tableCallbacks.willSelect.unimplemented(indexPath)
    }

    public func tableView(_ tableView: TableView, didSelectRowAt indexPath: IndexPath) {
        TableView.tableCallbacks.didSelect.unimplemented(indexPath)
    }

    public func tableView(_ tableView: TableView, willDeselectRowAt indexPath: IndexPath) -> IndexPath? {
        TableView.tableCallbacks.willDeselect.unimplemented(indexPath)
    }

    public func tableView(_ tableView: TableView, didDeselectRowAt indexPath: IndexPath) {
        TableView.tableCallbacks.didDeselect.unimplemented(indexPath)
    }
}

/// The callback table of `TableViewDelegate`'s own callbacks, each declared once; the scroll
/// callbacks it inherits stay in `ScrollViewCallbacks`, recorded under `ScrollViewDelegate`.
public struct TableViewCallbacks: CallbackTable {
    public static let protocolName = "TableViewDelegate"

    public let shouldHighlight = Callback<any TableViewDelegate, TableView, IndexPath, Bool>(
        "tableView(_:shouldHighlightRowAt:)", arguments: .one("indexPath", .indexPath),
        answer: .veto(), invoke: { $0.tableView($1, shouldHighlightRowAt: $2) })

    /// An override: recorded as overridden when the answer is not the tapped row (nil or a redirect).
    public let willSelect = Callback<any TableViewDelegate, TableView, IndexPath, IndexPath?>(
        "tableView(_:willSelectRowAt:)", arguments: .one("indexPath", .indexPath),
        answer: .override(proposal: { $0 }, coding: .optional(.indexPath), described: "the proposed index path"),
        invoke: { $0.tableView($1, willSelectRowAt: $2) })

    public let didSelect = Callback<any TableViewDelegate, TableView, IndexPath, Void>(
        "tableView(_:didSelectRowAt:)", arguments: .one("indexPath", .indexPath), answer: .void,
        invoke: { $0.tableView($1, didSelectRowAt: $2) })

    /// An override: recorded as overridden when the answer is not the selected row.
    public let willDeselect = Callback<any TableViewDelegate, TableView, IndexPath, IndexPath?>(
        "tableView(_:willDeselectRowAt:)", arguments: .one("indexPath", .indexPath),
        answer: .override(proposal: { $0 }, coding: .optional(.indexPath), described: "the proposed index path"),
        invoke: { $0.tableView($1, willDeselectRowAt: $2) })

    public let didDeselect = Callback<any TableViewDelegate, TableView, IndexPath, Void>(
        "tableView(_:didDeselectRowAt:)", arguments: .one("indexPath", .indexPath), answer: .void,
        invoke: { $0.tableView($1, didDeselectRowAt: $2) })
}

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
        delegateDefault(TableViewCallbacks.shouldHighlight.defaultResult(indexPath))
    }

    public func tableView(_ tableView: TableView, willSelectRowAt indexPath: IndexPath) -> IndexPath? {
        delegateDefault(TableViewCallbacks.willSelect.defaultResult(indexPath))
    }

    public func tableView(_ tableView: TableView, didSelectRowAt indexPath: IndexPath) { delegateDefault() }

    public func tableView(_ tableView: TableView, willDeselectRowAt indexPath: IndexPath) -> IndexPath? {
        delegateDefault(TableViewCallbacks.willDeselect.defaultResult(indexPath))
    }

    public func tableView(_ tableView: TableView, didDeselectRowAt indexPath: IndexPath) { delegateDefault() }
}

/// The callback table of `TableViewDelegate`'s own callbacks, each declared once; the scroll
/// callbacks it inherits stay in `ScrollViewCallbacks`, recorded under `ScrollViewDelegate`.
public enum TableViewCallbacks {
    public static let protocolName = "TableViewDelegate"

    public static let shouldHighlight = Callback<any TableViewDelegate, TableView, IndexPath, Bool>(
        protocolName, "tableView(_:shouldHighlightRowAt:)", arguments: .one("indexPath", .indexPath),
        answer: .veto(), invoke: { $0.tableView($1, shouldHighlightRowAt: $2) })

    /// An override: recorded as overridden when the answer is not the tapped row (nil or a redirect).
    public static let willSelect = Callback<any TableViewDelegate, TableView, IndexPath, IndexPath?>(
        protocolName, "tableView(_:willSelectRowAt:)", arguments: .one("indexPath", .indexPath),
        answer: .override(proposal: { $0 }, coding: .optional(.indexPath), described: "the proposed index path"),
        invoke: { $0.tableView($1, willSelectRowAt: $2) })

    public static let didSelect = Callback<any TableViewDelegate, TableView, IndexPath, Void>(
        protocolName, "tableView(_:didSelectRowAt:)", arguments: .one("indexPath", .indexPath), answer: .void,
        invoke: { $0.tableView($1, didSelectRowAt: $2) })

    /// An override: recorded as overridden when the answer is not the selected row.
    public static let willDeselect = Callback<any TableViewDelegate, TableView, IndexPath, IndexPath?>(
        protocolName, "tableView(_:willDeselectRowAt:)", arguments: .one("indexPath", .indexPath),
        answer: .override(proposal: { $0 }, coding: .optional(.indexPath), described: "the proposed index path"),
        invoke: { $0.tableView($1, willDeselectRowAt: $2) })

    public static let didDeselect = Callback<any TableViewDelegate, TableView, IndexPath, Void>(
        protocolName, "tableView(_:didDeselectRowAt:)", arguments: .one("indexPath", .indexPath), answer: .void,
        invoke: { $0.tableView($1, didDeselectRowAt: $2) })

    /// Every callback of the protocol, invocable by name (replay) and listed by `auditctl callbacks`.
    public static let invokers: [CallbackInvoker] = [
        shouldHighlight.invoker, willSelect.invoker, didSelect.invoker, willDeselect.invoker,
        didDeselect.invoker,
    ]
    public static let all = invokers.map(\.descriptor)
}

/// A table view's one proxy: forwards the scroll callbacks (inherited, recorded under
/// `ScrollViewDelegate`) and the table's own (recorded under `TableViewDelegate`) to the table's
/// app delegate. The table callbacks go to that delegate only when it adopts `TableViewDelegate`;
/// otherwise the proxy records "not implemented" and returns the default.
final class TableViewDelegateProxy: ScrollViewDelegateProxy, TableViewDelegate {
    func tableView(_ tableView: TableView, shouldHighlightRowAt indexPath: IndexPath) -> Bool {
        forward(TableViewCallbacks.shouldHighlight, to: tableView.tableDelegate, tableView, indexPath)
    }

    func tableView(_ tableView: TableView, willSelectRowAt indexPath: IndexPath) -> IndexPath? {
        forward(TableViewCallbacks.willSelect, to: tableView.tableDelegate, tableView, indexPath)
    }

    func tableView(_ tableView: TableView, didSelectRowAt indexPath: IndexPath) {
        forward(TableViewCallbacks.didSelect, to: tableView.tableDelegate, tableView, indexPath)
    }

    func tableView(_ tableView: TableView, willDeselectRowAt indexPath: IndexPath) -> IndexPath? {
        forward(TableViewCallbacks.willDeselect, to: tableView.tableDelegate, tableView, indexPath)
    }

    func tableView(_ tableView: TableView, didDeselectRowAt indexPath: IndexPath) {
        forward(TableViewCallbacks.didDeselect, to: tableView.tableDelegate, tableView, indexPath)
    }
}

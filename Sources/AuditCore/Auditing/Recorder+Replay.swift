extension Recorder {
    /// Stores an event whose outcome was computed elsewhere (isolated replay invokes callbacks
    /// itself): numbered next, nested under `parent` (0 for none). Returns its `seq`.
    @discardableResult
    func append(
        _ descriptor: CallbackDescriptor, widget: Int32, arguments: [AuditValue], result: AuditValue?, flags: UInt8,
        parent: Int64
    ) -> Int64 {
        let seq = nextSeq.add(1, ordering: .relaxed).oldValue
        queue.append(
            CapturedEvent(
                seq: seq, time: monotonicNanoseconds() - clockOrigin, widget: widget, descriptor: descriptor,
                flags: flags, arguments: CapturedArguments(arguments), result: result, duration: 0, parent: parent))
        return seq
    }
}

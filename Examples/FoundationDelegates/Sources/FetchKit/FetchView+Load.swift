import AuditCore
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One fetch under way: its session, whose delegate it is, and the steps the session's queue
/// hands to the input's thread.
///
/// What forwards and who wins: the session calls this object on its delegate queue; each call
/// becomes a step the input's thread runs in order, asking the view's delegate; the answer the
/// view takes (the delegate's, or the recorded one in isolated replay) goes to the session at
/// once, from the thread that gives it, and the view acts on it on the input's thread. While an
/// answer is awaited the session's later steps wait, so the view sees the same course whether
/// the answer came at once or later, and whatever Linux Foundation did meanwhile (it does not
/// wait for a response's disposition).
final class Load: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: everything but `mailbox` (under its mutex) and `arrived` (thread-safe) is touched
    // only by the input's thread, in `run` and the steps it runs.
    private unowned let view: FetchView
    private let mailbox = Mutex<[Step]>([])
    private let arrived = DispatchSemaphore(value: 0)
    /// The session's steps held while an answer is awaited, in order.
    private var backlog: [Step] = []
    /// How many asks await their answer.
    private var awaited = 0
    /// The asks made since the last answer was acted on.
    private var asked: [PendingAnswer] = []
    private var body = Data()
    /// Whether the view stopped the load: its delegate cancelled the response, or let go of a
    /// handler without calling it. The rest of the body is dropped and the load ends cancelled.
    private var stopped = false
    private var outcome = FetchOutcome(status: nil, path: nil, bytes: 0, errorCode: nil, cancelled: false)
    private var ended = false

    /// A step for the input's thread: from the session, or acting on an answer.
    private struct Step: Sendable {
        var isAnswer: Bool
        var run: @Sendable () -> Void
    }

    init(view: FetchView) { self.view = view }

    /// Runs the data task for `request` and the steps it causes, on this thread, until it ends.
    ///
    /// Bounded by construction: the session calls `didCompleteWithError` once the server closed the
    /// connection or the view cancelled the task, provided every completion handler it gave was
    /// called, which the view sees to: a delegate's answer answers it, and a handler the delegate
    /// lets go of uncalled makes the view refuse and cancel. Not bounded: an isolated replay of a
    /// recorded "never answered" (the README's root gap (d)), or a delegate that holds a handler
    /// for ever.
    func run(_ request: URLRequest) -> FetchOutcome {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: queue)
        session.dataTask(with: request).resume()
        while !ended {
            arrived.wait()
            while let step = mailbox.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { handle(step) }
        }
        session.finishTasksAndInvalidate()
        return outcome
    }

    /// Runs `step`, or holds it while an answer is awaited; an answer's step runs the held ones
    /// once no answer is awaited any more.
    private func handle(_ step: Step) {
        guard step.isAnswer else {
            if awaited > 0 { backlog.append(step) } else { step.run() }
            return
        }
        awaited -= 1
        // The answering thread may still be recording the answer (the recorder queues its event
        // once the widget's closure returns): let it finish first, so that the fetch, and the
        // recording, cannot end before the answer is in it. Bounded: the ask is settled.
        for pending in asked { pending.wait() }
        asked.removeAll()
        step.run()
        while awaited == 0, !backlog.isEmpty { backlog.removeFirst().run() }
    }

    /// Hands a step of the session's to the input's thread.
    private func post(_ run: @escaping @Sendable () -> Void) {
        mailbox.withLock { $0.append(Step(isAnswer: false, run: run)) }
        arrived.signal()
    }

    /// Asks through `callback` (on the input's thread): `reply` answers the session from the thread
    /// that answers, `apply` then acts on the answer on the input's thread.
    ///
    /// When the delegate lets go of the handler without calling it (a mistake, recorded "never
    /// answered"), the view stops the load: it cancels `task`, answers the session with `refuse`
    /// (so the session's handler is not lost either), and the load ends cancelled, with
    /// `FetchOutcome.unanswered` set.
    private func ask<Arguments, Result>(
        _ callback: KeyPath<FetchCallbacks, LaterCallback<any FetchViewDelegate, FetchView, Arguments, Result>>,
        _ arguments: Arguments, task: Handed<URLSessionTask>, reply: @escaping @Sendable (Result) -> Void,
        refuse: @escaping @Sendable () -> Void, apply: @escaping @Sendable (Result) -> Void = { _ in }
    ) {
        awaited += 1
        let pending = FetchView.callbacks[keyPath: callback].ask(
            view.delegate, view, arguments,
            then: { [self] result in
                reply(result)
                answered { apply(result) }
            },
            ifNeverAnswered: { [self] in
                task.value.cancel()
                refuse()
                answered { [self] in
                    stopped = true
                    outcome.unanswered = true
                    outcome.bytes = 0
                    body = Data()
                }
            })
        asked.append(pending)
    }

    /// Hands the input's thread what to do now that an ask is settled (from any thread).
    private func answered(_ run: @escaping @Sendable () -> Void) {
        mailbox.withLock { $0.append(Step(isAnswer: true, run: run)) }
        arrived.signal()
    }

    /// Tells the delegate the body of the response before, if any.
    private func flushBody() {
        guard !body.isEmpty else { return }
        let loaded = body
        body = Data()
        FetchView.callbacks.didLoad.ask(view.delegate, view, loaded)
    }

    // MARK: The session's delegate (called on the session's queue)

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        let reply = UncheckedReply(completionHandler)
        let head = FetchResponse(response)
        let proposed = Handed(request)
        let task = Handed(task)
        post { [self] in
            flushBody()
            ask(
                \.willRedirect, (head, proposed.value), task: task, reply: { reply.call($0) },
                refuse: { reply.call(nil) })
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let reply = UncheckedReply<(URLSession.AuthChallengeDisposition, URLCredential?)> {
            completionHandler($0.0, $0.1)
        }
        let asked = FetchChallenge(challenge)
        let task = Handed(task)
        post { [self] in
            flushBody()
            ask(
                \.challenge, asked, task: task,
                reply: { answer in
                    let credential = answer.credential
                    // Linux: default handling without a credential never completes; cancel instead.
                    let disposition: URLSession.AuthChallengeDisposition =
                        answer.foundationDisposition == .performDefaultHandling && credential == nil
                        ? .cancelAuthenticationChallenge : answer.foundationDisposition
                    reply.call((disposition, credential))
                },
                refuse: { reply.call((.cancelAuthenticationChallenge, nil)) })
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let reply = UncheckedReply(completionHandler)
        let task = Handed<URLSessionTask>(dataTask)
        let head = FetchResponse(response)
        post { [self] in
            flushBody()
            outcome.status = head.status
            outcome.path = head.path
            outcome.bytes = 0
            ask(
                \.response, head, task: task,
                reply: { allow in
                    // Linux ignores `.cancel` (and does not wait for it): the view cancels the task.
                    if !allow { task.value.cancel() }
                    reply.call(allow ? .allow : .cancel)
                },
                refuse: { reply.call(.cancel) },
                apply: { [self] allow in
                    guard !allow else { return }
                    stopped = true
                    outcome.cancelled = true
                    outcome.bytes = 0
                    body = Data()
                })
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        post { [self] in
            guard !stopped else { return }
            body += data
            outcome.bytes += data.count
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let failure = error.map { Handed($0 as NSError) }
        post { [self] in
            flushBody()
            // A stopped load ends cancelled, as a vetoed response does at Apple, whether or not the
            // task had already finished when the view cancelled it (Linux does not wait for the
            // disposition).
            let error = stopped ? NSError(domain: NSURLErrorDomain, code: NSURLErrorCancelled) : failure?.value
            outcome.errorCode = error?.code
            FetchView.callbacks.didComplete.ask(view.delegate, view, error)
            ended = true
        }
    }
}

/// A completion handler of the session's, called once from whichever thread answers: the session's
/// handlers may be called from any thread.
struct UncheckedReply<Value>: @unchecked Sendable {
    // @unchecked: Foundation's handlers are not marked `Sendable` but are documented callable from
    // any thread; this one is called once.
    private let handler: (Value) -> Void

    init(_ handler: @escaping (Value) -> Void) { self.handler = handler }

    func call(_ value: Value) { handler(value) }
}

/// A value handed from the session's queue to the input's thread, which alone uses it after.
struct Handed<Value>: @unchecked Sendable {
    // @unchecked: the session's queue lets go of it once handed over.
    let value: Value

    init(_ value: Value) { self.value = value }
}

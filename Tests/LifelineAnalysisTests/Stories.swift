import LifelineLog

/// Hand-written traces of the stories Lifeline must explain, with the ids of their objects.
enum Stories {
    struct Story {
        var script = TraceScript()
        var publisher = TraceObjectID(0)
        var subscriber = TraceObjectID(0)
        var subscription = TraceObjectID(0)
    }

    /// A custom publisher hands its subscriber a subscription that nobody keeps: the
    /// subscription dies as soon as the subscribe call returns, and the subscriber, which
    /// asked for unlimited values, dies later with nothing delivered, after a check that saw it
    /// alive and its subscription dead.
    static func forgottenSubscription() -> Story {
        var story = Story()
        story.publisher = story.script.object("URLSessionPublisher", .publisher, tracked: false)
        story.subscriber = story.script.object("URLSessionSubscriber", .subscriber)
        story.subscription = story.script.object("URLSessionSubscription", .subscription)
        let (p, x, s) = (story.publisher, story.subscriber, story.subscription)
        story.script.subscribe(p, x) { // 1…6
            $0.receiveSubscription(x, s) { $0.request(s, .unlimited) }
        }
        story.script.found(dead: s, aliveAt: 5) // 7
        story.script.found(dead: x, aliveAt: 6) // 8
        return story
    }

    /// The first fix: the subscriber stores the subscription, and gets a value and the
    /// completion before both are released.
    static func storedSubscription() -> Story {
        var story = Story()
        story.publisher = story.script.object("URLSessionPublisher", .publisher, tracked: false)
        story.subscriber = story.script.object("URLSessionSubscriber", .subscriber)
        story.subscription = story.script.object("URLSessionSubscription", .subscription)
        let (p, x, s) = (story.publisher, story.subscriber, story.subscription)
        story.script.subscribe(p, x) {
            $0.receiveSubscription(x, s) { $0.request(s, .unlimited) }
        }
        story.script.thread = TraceScript.worker
        story.script.value(x)
        story.script.complete(x)
        story.script.found(dead: s, aliveAt: 10)
        story.script.found(dead: x, aliveAt: 10)
        return story
    }

    /// The second fix: `sink` on a subject, its AnyCancellable kept by the owner; two values
    /// arrive and the pipeline is still running when recording stops.
    static func keptSink() -> Story {
        var story = Story()
        story.publisher = story.script.object("PassthroughSubject", .publisher)
        story.subscriber = story.script.object("Sink", .subscriber, label: "ui")
        story.subscription = story.script.object("PassthroughSubject.Conduit", .subscription)
        let (p, x, s) = (story.publisher, story.subscriber, story.subscription)
        story.script.subscribe(p, x) {
            $0.receiveSubscription(x, s) { $0.request(s, .unlimited) }
        }
        story.script.value(x)
        story.script.value(x)
        return story
    }

    /// `_ = subject.sink { }`: the AnyCancellable is dropped at once and cancels.
    static func droppedSink() -> Story {
        var story = Story()
        story.publisher = story.script.object("PassthroughSubject", .publisher)
        story.subscriber = story.script.object("Sink", .subscriber)
        story.subscription = story.script.object("PassthroughSubject.Conduit", .subscription)
        let (p, x, s) = (story.publisher, story.subscriber, story.subscription)
        story.script.subscribe(p, x) { // 1…6
            $0.receiveSubscription(x, s) { $0.request(s, .unlimited) }
        }
        story.script.cancel(s) // 7, 8
        story.script.found(dead: s, aliveAt: 6) // 9
        story.script.found(dead: x, aliveAt: 6) // 10
        return story
    }
}

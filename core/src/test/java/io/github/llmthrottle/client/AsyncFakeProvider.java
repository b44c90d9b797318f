package io.github.llmthrottle.client;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A non-blocking transport for the asynchronous call pipeline's tests: each attempt takes
 * the next scripted response, I/O error, or an exchange left in flight for the test to
 * complete or to see cancelled; attempts and their targets are counted (read from any
 * thread: a call may go on on another).
 */
final class AsyncFakeProvider implements AsyncProviderExchange<FakeProvider.Response> {

    private final Deque<Object> script = new ArrayDeque<>();

    final List<CompletableFuture<FakeProvider.Response>> inFlight = new CopyOnWriteArrayList<>();

    final List<String> targets = new CopyOnWriteArrayList<>();

    final List<FakeProvider.Response> sent = new CopyOnWriteArrayList<>();

    private final boolean redirects;

    AsyncFakeProvider() {
        this(false);
    }

    AsyncFakeProvider(boolean redirects) {
        this.redirects = redirects;
    }

    AsyncFakeProvider then(int status, String body, String... headers) {
        this.script.add(new FakeProvider.Response(status, body, headers));
        return this;
    }

    AsyncFakeProvider thenIoError(String message) {
        this.script.add(new IOException(message));
        return this;
    }

    /** An exchange that stays in flight until the test completes it. */
    AsyncFakeProvider thenInFlight() {
        this.script.add(this.inFlight);
        return this;
    }

    int attempts() {
        return this.targets.size();
    }

    @Override
    public CompletableFuture<FakeProvider.Response> execute() {
        return next("as requested");
    }

    @Override
    public boolean canRedirect() {
        return this.redirects;
    }

    @Override
    public CompletableFuture<FakeProvider.Response> execute(ProviderTarget target) {
        return next(target.deployment());
    }

    private CompletableFuture<FakeProvider.Response> next(String target) {
        this.targets.add(target);
        Object next = this.script.poll();
        if (next == null) {
            throw new IllegalStateException("No response scripted for attempt " + this.targets.size());
        }
        if (next == this.inFlight) {
            CompletableFuture<FakeProvider.Response> pending = new CompletableFuture<>();
            this.inFlight.add(pending);
            return pending;
        }
        if (next instanceof IOException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        FakeProvider.Response response = (FakeProvider.Response) next;
        this.sent.add(response);
        return CompletableFuture.completedFuture(response);
    }

    @Override
    public CompletableFuture<byte[]> readBody(FakeProvider.Response response, int limit) {
        try (response; InputStream in = response.body()) {
            byte[] body = in.readAllBytes();
            return CompletableFuture.completedFuture((body.length > limit) ? Arrays.copyOf(body, limit) : body);
        }
        catch (IOException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

}

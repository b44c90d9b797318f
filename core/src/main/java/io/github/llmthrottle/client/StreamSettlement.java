package io.github.llmthrottle.client;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import io.github.llmthrottle.provider.Usage;
import io.github.llmthrottle.provider.UsageReader;
import org.jspecify.annotations.Nullable;

/**
 * The body of a streamed (server-sent events) response, passed to the caller as it
 * arrives, never buffered, while an {@link EventStreamScanner} watches its events for
 * usage and for an error inside the 200 stream. Works on any HTTP library's body stream.
 * When the first bytes reach the caller, that is reported once (the time to first chunk);
 * when the caller reaches the end or closes the body (or the response), or the client
 * expires the idle stream, the outcome is reported exactly once, for the attempt to
 * settle its permit and reservation.
 */
final class StreamSettlement {

    private final ProviderResponse delegate;

    private final EventStreamScanner scanner;

    private final Consumer<Outcome> onEnd;

    private final Runnable onFirstChunk;

    /** Whether the first bytes were read (the body is read by one thread at a time). */
    private boolean firstChunkRead;

    private final AtomicBoolean ended = new AtomicBoolean();

    private final ReentrantLock lock = new ReentrantLock();

    private @Nullable InputStream body;

    private final LongSupplier clock;

    private volatile @Nullable Set<StreamSettlement> open;

    /** When the caller last opened or read the body, on {@link #clock}. */
    private volatile long lastActivity;

    StreamSettlement(ProviderResponse delegate, UsageReader usageReader, Consumer<Outcome> onEnd, LongSupplier clock) {
        this(delegate, usageReader, onEnd, () -> {
        }, clock);
    }

    StreamSettlement(ProviderResponse delegate, UsageReader usageReader, Consumer<Outcome> onEnd, Runnable onFirstChunk,
            LongSupplier clock) {
        this.delegate = delegate;
        this.scanner = new EventStreamScanner(usageReader);
        this.onEnd = onEnd;
        this.onFirstChunk = onFirstChunk;
        this.clock = clock;
        this.lastActivity = clock.getAsLong();
    }

    /**
     * The body the caller reads, created on first use.
     * @return the body
     * @throws IOException when the response's body cannot be opened
     */
    InputStream body() throws IOException {
        this.lock.lock();
        try {
            if (this.body == null) {
                this.body = new EventScanningStream(this.delegate.body());
            }
            return this.body;
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * Closes the response and reports the outcome, if not reported yet: complete when the
     * provider's final event was read (a caller may close the stream at its last event
     * without reading the end of the body).
     */
    void close() {
        try {
            this.delegate.close();
        }
        finally {
            end(this.scanner.isAnswered());
        }
    }

    /**
     * The caller read {@code chunk} of a body its HTTP library passes on itself (an
     * asynchronous adapter's): scanned as {@link #body()} scans what it passes, the
     * buffer's position left as it was. Chunks come one at a time, in order.
     * @param chunk the bytes read
     */
    void chunk(ByteBuffer chunk) {
        this.lastActivity = this.clock.getAsLong();
        if (chunk.hasRemaining()) {
            onBytes();
        }
        for (int i = chunk.position(); i < chunk.limit(); i++) {
            this.scanner.scan(chunk.get(i));
        }
    }

    /**
     * The caller read the whole of a body its HTTP library passes on itself: the stream
     * ended complete.
     */
    void completed() {
        end(true);
    }

    /** Whether the stream has ended (read to its end, closed, or expired). */
    boolean isEnded() {
        return this.ended.get();
    }

    /**
     * Ends a stream its caller has neither read nor closed for longer than
     * {@code timeoutNanos}: the response is ended ({@link ProviderResponse#expired}) and
     * the outcome reported as incomplete, so the call's concurrency slot and reservation
     * come back.
     * @param timeoutNanos the longest idle time
     * @return whether the stream was expired now
     */
    boolean expireIfIdle(long timeoutNanos) {
        long idle = this.clock.getAsLong() - this.lastActivity;
        if (this.ended.get() || idle <= timeoutNanos) {
            return false;
        }
        try {
            this.delegate.expired(Duration.ofNanos(idle));
        }
        finally {
            end(this.scanner.isAnswered());
        }
        return true;
    }

    /**
     * Keeps this stream in {@code open} until it ends (for
     * {@link ThrottledClient#expireIdleStreams()}).
     * @param open the set of a client's open streams
     * @return this settlement
     */
    StreamSettlement trackedIn(Set<StreamSettlement> open) {
        this.open = open;
        open.add(this);
        if (this.ended.get()) {
            open.remove(this);
        }
        return this;
    }

    /**
     * Ends every stream of {@code open} whose caller has neither read nor closed it for
     * longer than {@code timeoutNanos} ({@link ThrottledClient#expireIdleStreams()}).
     * @param open a client's open streams
     * @param timeoutNanos the longest idle time
     * @return how many streams were ended
     */
    static int expireIdle(Set<StreamSettlement> open, long timeoutNanos) {
        int expired = 0;
        for (StreamSettlement stream : open) {
            if (stream.expireIfIdle(timeoutNanos)) {
                expired++;
            }
            if (stream.isEnded()) {
                open.remove(stream);
            }
        }
        return expired;
    }

    private void end(boolean complete) {
        if (this.ended.compareAndSet(false, true)) {
            Set<StreamSettlement> open = this.open;
            if (open != null) {
                open.remove(this);
            }
            this.onEnd.accept(new Outcome(this.scanner.usage(), this.scanner.errorType(), complete));
        }
    }

    private void onBytes() {
        if (!this.firstChunkRead) {
            this.firstChunkRead = true;
            this.onFirstChunk.run();
        }
    }

    /**
     * How a stream ended.
     *
     * @param usage the last usage seen, or {@code null}
     * @param errorType the type of an error event inside the stream, or {@code null}
     * @param complete whether the caller read to the end
     */
    record Outcome(@Nullable Usage usage, @Nullable String errorType, boolean complete) {

    }

    /** Passes bytes through while the scanner reads them. */
    private final class EventScanningStream extends FilterInputStream {

        EventScanningStream(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            StreamSettlement.this.lastActivity = StreamSettlement.this.clock.getAsLong();
            int b = super.read();
            if (b < 0) {
                end(true);
            }
            else {
                onBytes();
                StreamSettlement.this.scanner.scan(b);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            StreamSettlement.this.lastActivity = StreamSettlement.this.clock.getAsLong();
            int n = super.read(buffer, offset, length);
            if (n < 0) {
                end(true);
            }
            else if (n > 0) {
                onBytes();
            }
            for (int i = 0; i < n; i++) {
                StreamSettlement.this.scanner.scan(buffer[offset + i]);
            }
            return n;
        }

        @Override
        public void close() throws IOException {
            StreamSettlement.this.close();
        }

    }

}

package io.github.llmthrottle.client;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Gives back the slots of streamed responses their callers abandoned: once a
 * {@code period}, every client of the registry ends the streams nobody has read nor
 * closed for longer than its read timeout ({@link ThrottledClient#expireIdleStreams()}).
 * One daemon thread; {@link #close()} stops it.
 */
public final class IdleStreamReaper implements AutoCloseable {

    private static final Log logger = LogFactory.getLog(IdleStreamReaper.class);

    private final ScheduledExecutorService executor;

    /**
     * Starts reaping.
     * @param registry the clients
     * @param period how often to look
     */
    public IdleStreamReaper(LlmThrottleRegistry registry, Duration period) {
        this.executor = Executors.newSingleThreadScheduledExecutor((task) -> {
            Thread thread = new Thread(task, "llm-throttle-idle-streams");
            thread.setDaemon(true);
            return thread;
        });
        long nanos = Math.max(1, period.toNanos());
        this.executor.scheduleWithFixedDelay(() -> reap(registry), nanos, nanos, TimeUnit.NANOSECONDS);
    }

    private static void reap(LlmThrottleRegistry registry) {
        for (ThrottledClient client : registry.getClients().values()) {
            try {
                int expired = client.expireIdleStreams();
                if (expired > 0) {
                    logger.warn("Client '" + client.getName() + "': ended " + expired + " streamed response(s) that"
                            + " were neither read nor closed for longer than the read timeout "
                            + client.getSettings().readTimeout());
                }
            }
            catch (RuntimeException ex) {
                logger.warn("Could not end idle streams of client '" + client.getName() + "'", ex);
            }
        }
    }

    @Override
    public void close() {
        this.executor.shutdownNow();
    }

}

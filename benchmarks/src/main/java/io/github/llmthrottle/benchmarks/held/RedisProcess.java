package io.github.llmthrottle.benchmarks.held;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@code redis-server} of the soak's own, on a port of its own, that the soak starts,
 * stops and starts again ({@code redis-server} and {@code redis-cli} on the
 * {@code PATH}). Nothing is saved: a restart starts empty, as a Redis without persistence
 * does. The port of a shared Redis (6379) is refused, so that a soak never restarts or
 * empties a server that others use.
 */
final class RedisProcess {

    /** The port of the Redis that other tests share: never this soak's. */
    static final int SHARED_PORT = 6379;

    private final int port;

    /** Whether this soak started the server (rather than finding one running). */
    private boolean owned;

    RedisProcess(int port) {
        if (port == SHARED_PORT) {
            throw new IllegalArgumentException(
                    "The soak restarts its Redis: give it a port of its own (--redis-port), not " + SHARED_PORT);
        }
        this.port = port;
    }

    int port() {
        return this.port;
    }

    /** Starts the server unless it answers already, and waits until it does. */
    void start() throws IOException, InterruptedException {
        if (ping()) {
            return;
        }
        this.owned = true;
        run(List.of("redis-server", "--port", String.valueOf(this.port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--daemonize", "yes"));
        await(true);
    }

    /** Stops the server without saving, and waits until it no longer answers. */
    void stop() throws IOException, InterruptedException {
        run(List.of("redis-cli", "-p", String.valueOf(this.port), "shutdown", "nosave"));
        await(false);
    }

    /** Stops the server if this soak started it, and leaves one it found running. */
    void stopIfOwned() throws IOException, InterruptedException {
        if (this.owned) {
            this.owned = false;
            stop();
        }
    }

    /**
     * Whether the server answers {@code PING}.
     * @return {@code true} if it does
     */
    boolean ping() throws IOException, InterruptedException {
        Process process = new ProcessBuilder("redis-cli", "-p", String.valueOf(this.port), "ping")
            .redirectErrorStream(true)
            .start();
        String out = new String(process.getInputStream().readAllBytes()).trim();
        return process.waitFor(5, TimeUnit.SECONDS) && "PONG".equals(out);
    }

    /**
     * The keys the server holds.
     * @return the count, or -1 if it does not answer
     */
    long keys() throws IOException, InterruptedException {
        Process process = new ProcessBuilder("redis-cli", "-p", String.valueOf(this.port), "dbsize")
            .redirectErrorStream(true)
            .start();
        String out = new String(process.getInputStream().readAllBytes()).trim();
        try {
            return process.waitFor(5, TimeUnit.SECONDS) ? Long.parseLong(out) : -1;
        }
        catch (NumberFormatException ex) {
            return -1;
        }
    }

    private void await(boolean up) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ping() != up) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "Redis on port " + this.port + " did not " + (up ? "start" : "stop") + " within 10 s");
            }
            Thread.sleep(50);
        }
    }

    private static void run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " did not finish within 10 s");
        }
    }

}

package io.github.llmthrottle.test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpServer;

/**
 * The loopback HTTP server of an {@link LlmSimulator}: a JDK {@link HttpServer} whose
 * daemon handler threads run a {@link SimulatorHandler}.
 */
final class SimulatorServer {

    private final HttpServer server;

    private final ThreadPoolExecutor executor;

    private final AtomicBoolean closed = new AtomicBoolean();

    SimulatorServer(int port, int threads, SimulatorState state) throws IOException {
        this.executor = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                new DaemonThreads());
        this.executor.allowCoreThreadTimeOut(true);
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1024);
        this.server.createContext("/", new SimulatorHandler(state));
        this.server.setExecutor(this.executor);
        this.server.start();
    }

    InetSocketAddress address() {
        return this.server.getAddress();
    }

    /**
     * Stops the server at once: open connections are closed and handler threads
     * interrupted. Idempotent.
     */
    void close() {
        if (!this.closed.compareAndSet(false, true)) {
            return;
        }
        this.server.stop(0);
        this.executor.shutdownNow();
        try {
            this.executor.awaitTermination(5, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** Names the handler threads and makes them daemons. */
    private static final class DaemonThreads implements ThreadFactory {

        private static final AtomicInteger POOLS = new AtomicInteger();

        private final int pool = POOLS.incrementAndGet();

        private final AtomicInteger count = new AtomicInteger();

        @Override
        public Thread newThread(Runnable runnable) {
            Thread thread = new Thread(runnable, "llm-simulator-" + this.pool + "-" + this.count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        }

    }

}

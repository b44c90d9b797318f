package io.github.llmthrottle.benchmarks.memory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import com.sun.net.httpserver.HttpServer;
import io.github.llmthrottle.benchmarks.ThrottleApplication;
import io.github.llmthrottle.client.LlmThrottleRegistry;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.client.RestClient;

/**
 * A large file download from a configured client's host through the throttled
 * {@code RestClient}s, as a batch's results or a file's content are fetched: a loopback
 * server streams the bytes, generated on the fly, and the caller reads them in 64 KB
 * reads, through the client's own {@code anthropicRestClient} and through a
 * {@code RestClient} built from Boot's builder. Run it with a heap smaller than the
 * download: a body buffered anywhere on the way would not fit. It prints, per client, the
 * time, the throughput and the highest used heap during the download (the peak of the
 * heap pools, reset before each run), and the model's totals (nothing was charged). <pre>
 * java -Xmx256m -cp benchmarks/target/benchmarks.jar \
 *     io.github.llmthrottle.benchmarks.memory.LargeDownload [--megabytes 1024]
 * </pre>
 */
public final class LargeDownload {

    private static final String MODEL = "claude-sonnet-4-5";

    private static final String PATH = "/v1/files/file_1/content";

    private static final int CHUNK = 64 * 1024;

    private LargeDownload() {
    }

    public static void main(String[] args) throws Exception {
        long megabytes = 1024;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--megabytes")) {
                megabytes = Long.parseLong(args[++i]);
            }
            else {
                throw new IllegalArgumentException("Unknown argument " + args[i] + "; use --megabytes 1024");
            }
        }
        System.out.printf(Locale.ROOT, "JDK %s, %d CPUs, max heap %d MB, GC %s%n", Runtime.version(),
                Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20,
                ManagementFactory.getGarbageCollectorMXBeans().get(0).getName());
        for (Result result : run(megabytes << 20)) {
            System.out.println(result);
        }
        System.exit(0);
    }

    /**
     * Downloads {@code bytes} through each throttled {@code RestClient}.
     * @param bytes the size of the download
     * @return one result per client
     * @throws IOException when the server cannot start
     */
    public static List<Result> run(long bytes) throws IOException {
        HttpServer server = server(bytes);
        server.start();
        String baseUrl = "http://localhost:" + server.getAddress().getPort();
        try (ConfigurableApplicationContext context = ThrottleApplication.start(baseUrl, MODEL, Map
            .of("requests-per-minute", 1, "input-tokens-per-minute", 1_000, "output-tokens-per-minute", 1_000))) {
            RestClient own = context.getBean("anthropicRestClient", RestClient.class);
            RestClient boots = context.getBean(RestClient.Builder.class).build();
            Result first = download("anthropicRestClient", own, PATH, bytes);
            Result second = download("RestClient from Boot's builder", boots, baseUrl + PATH, bytes);
            long calls = context.getBean(LlmThrottleRegistry.class)
                .getClient("anthropic")
                .model(MODEL)
                .getTotals()
                .snapshot()
                .calls();
            return List.of(first.withCharged(calls), second.withCharged(calls));
        }
        finally {
            server.stop(0);
        }
    }

    private static Result download(String name, RestClient client, String uri, long expected) {
        Heap.usedAfterGc();
        resetPeaks();
        long start = System.nanoTime();
        long read = client.get().uri(uri).exchange((request, response) -> {
            byte[] buffer = new byte[CHUNK];
            long total = 0;
            try (InputStream body = response.getBody()) {
                for (int n; (n = body.read(buffer)) >= 0;) {
                    total += n;
                }
            }
            return total;
        });
        long nanos = System.nanoTime() - start;
        if (read != expected) {
            throw new IllegalStateException(name + " read " + read + " bytes of " + expected);
        }
        return new Result(name, read, nanos, peakHeapUsed(), -1);
    }

    /** A server whose every response is {@code bytes} of generated data, streamed. */
    private static HttpServer server(long bytes) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("localhost", 0), 0);
        byte[] chunk = new byte[CHUNK];
        for (int i = 0; i < chunk.length; i++) {
            chunk[i] = (byte) ('a' + i % 26);
        }
        server.createContext("/", (exchange) -> {
            exchange.getRequestBody().readAllBytes();
            exchange.getResponseHeaders().set("Content-Type", "application/octet-stream");
            exchange.sendResponseHeaders(200, bytes);
            try (OutputStream out = exchange.getResponseBody()) {
                for (long left = bytes; left > 0; left -= CHUNK) {
                    out.write(chunk, 0, (int) Math.min(CHUNK, left));
                }
            }
        });
        return server;
    }

    private static void resetPeaks() {
        heapPools().forEach(MemoryPoolMXBean::resetPeakUsage);
    }

    /** The sum of the heap pools' peaks since the last reset (an upper bound). */
    private static long peakHeapUsed() {
        return heapPools().stream().mapToLong((pool) -> pool.getPeakUsage().getUsed()).sum();
    }

    private static List<MemoryPoolMXBean> heapPools() {
        return ManagementFactory.getMemoryPoolMXBeans()
            .stream()
            .filter((pool) -> pool.getType() == MemoryType.HEAP && pool.isValid())
            .toList();
    }

    /**
     * One download.
     *
     * @param client which {@code RestClient}
     * @param bytes the bytes read
     * @param nanos how long it took
     * @param peakHeap the highest used heap while it ran (the sum of the heap pools'
     * peaks)
     * @param modelCalls the model's calls counted after the downloads ({@code -1} until
     * read)
     */
    public record Result(String client, long bytes, long nanos, long peakHeap, long modelCalls) {

        Result withCharged(long calls) {
            return new Result(this.client, this.bytes, this.nanos, this.peakHeap, calls);
        }

        /**
         * The throughput.
         * @return megabytes per second
         */
        public double megabytesPerSecond() {
            return (this.bytes / 1048576.0) / (this.nanos / 1e9);
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%s: %d MB in %.2f s, %.0f MB/s, peak heap used %d MB, model calls %d",
                    this.client, this.bytes >> 20, this.nanos / 1e9, megabytesPerSecond(), this.peakHeap >> 20,
                    this.modelCalls);
        }

    }

}

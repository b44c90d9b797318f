package io.github.llmthrottle.store.redis;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import io.github.llmthrottle.limit.TcpForwarder;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import static org.awaitility.Awaitility.await;

/**
 * Redis servers of a test class's own, started from the installed {@code redis-server}
 * binaries on free loopback ports in a temporary directory: a Redis Cluster of three
 * masters, each with one replica ({@link #cluster()}), or one master and one replica
 * watched by one Sentinel ({@link #sentinel()}). Registered as a static
 * {@code @RegisterExtension} field, it starts them before the class's tests and, after
 * them, kills every process it started and deletes the directory. Every wait is bounded.
 * (Public, in the module's test-jar, for the benchmarks' failover run.) A class whose
 * machine has no {@code redis-server} (or {@code redis-cli}) is skipped, saying so;
 * everything else that goes wrong fails it.
 */
public final class LocalRedis implements BeforeAllCallback, AfterAllCallback {

    /** The master name the Sentinel watches. */
    public static final String MASTER_NAME = "mymaster";

    private static final String HOST = "127.0.0.1";

    /** How long the servers may take to start and agree, on a busy machine. */
    private static final Duration STARTUP = Duration.ofSeconds(30);

    /**
     * How long a silent node takes to be failed by the others: short, so that a test sees
     * a failover in seconds.
     */
    private static final int NODE_TIMEOUT_MILLIS = 1000;

    private final boolean cluster;

    /** Each server process started, by port. */
    private final Map<Integer, Process> servers = new LinkedHashMap<>();

    private final List<Integer> sentinels = new ArrayList<>();

    private Path directory = Path.of(".");

    private LocalRedis(boolean cluster) {
        this.cluster = cluster;
    }

    /** Three masters with one replica each. */
    public static LocalRedis cluster() {
        return new LocalRedis(true);
    }

    /** One master, one replica, one Sentinel watching them as {@value #MASTER_NAME}. */
    public static LocalRedis sentinel() {
        return new LocalRedis(false);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        Assumptions.assumeTrue(installed("redis-server") && installed("redis-cli"),
                "redis-server and redis-cli are not installed: the Redis Cluster and Sentinel tests need them");
        this.directory = Files.createTempDirectory("llm-throttle-redis-");
        // should the JVM end without afterAll (killed, or a crash), no server outlives it
        Runtime.getRuntime()
            .addShutdownHook(
                    new Thread(() -> this.servers.values().forEach(Process::destroyForcibly), "local-redis-stop"));
        try {
            if (this.cluster) {
                startCluster();
            }
            else {
                startSentinel();
            }
        }
        catch (Exception | Error ex) {
            stop();
            throw ex;
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        stop();
    }

    /**
     * The seed nodes of the cluster, or the Sentinels, as {@code host:port}.
     * @return the addresses
     */
    public List<String> nodes() {
        List<Integer> ports = this.cluster ? new ArrayList<>(this.servers.keySet()) : this.sentinels;
        return ports.stream().map((port) -> HOST + ":" + port).toList();
    }

    /**
     * The port of the master that serves {@code key} now.
     * @param key a key
     * @return its master's port
     */
    public int masterOf(String key) {
        if (!this.cluster) {
            String[] address = cli(this.sentinels.get(0), "SENTINEL", "get-master-addr-by-name", MASTER_NAME)
                .split("\n");
            return Integer.parseInt(address[1].trim());
        }
        int slot = Integer.parseInt(cli(anyLive(), "CLUSTER", "KEYSLOT", key).trim());
        for (String line : cli(anyLive(), "CLUSTER", "NODES").split("\n")) {
            String[] fields = line.trim().split(" ");
            if (fields.length > 8 && fields[2].contains("master") && !fields[2].contains("fail")) {
                for (int i = 8; i < fields.length; i++) {
                    String[] range = fields[i].split("-");
                    int from = Integer.parseInt(range[0]);
                    int to = (range.length > 1) ? Integer.parseInt(range[1]) : from;
                    if (slot >= from && slot <= to) {
                        return Integer
                            .parseInt(fields[1].substring(fields[1].indexOf(':') + 1, fields[1].indexOf('@')));
                    }
                }
            }
        }
        throw new IllegalStateException("No master serves slot " + slot);
    }

    /**
     * The cluster slot of a key, as the server computes it ({@code CLUSTER KEYSLOT}).
     * @param key a key
     * @return its slot
     */
    public int slotOf(String key) {
        return Integer.parseInt(cli(anyLive(), "CLUSTER", "KEYSLOT", key).trim());
    }

    /**
     * Kills the server on {@code port} at once ({@code SIGKILL}), as a crash would.
     * @param port its port
     */
    public void kill(int port) {
        Process process = this.servers.get(port);
        if (process == null) {
            throw new IllegalArgumentException("No server of this test on port " + port);
        }
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Waits until another server has taken over from the killed master on {@code port}.
     * @param key a key the killed master served
     * @param port the killed master's port
     */
    public void awaitFailover(String key, int port) {
        waitFor("a replica to take over from the master on port " + port, () -> {
            try {
                return masterOf(key) != port && (!this.cluster || clusterOk(anyLive()));
            }
            catch (RuntimeException ex) {
                return false;
            }
        });
    }

    private void startCluster() throws IOException {
        List<Integer> ports = freePorts(6, true);
        for (int port : ports) {
            start(port,
                    List.of("--cluster-enabled", "yes", "--cluster-config-file",
                            this.directory.resolve("nodes-" + port + ".conf").toString(), "--cluster-node-timeout",
                            Integer.toString(NODE_TIMEOUT_MILLIS),
                            // a replica takes over however long ago it last heard from
                            // its
                            // master: on a loaded machine that can be longer than the
                            // default
                            // allows
                            "--cluster-replica-validity-factor", "0"));
        }
        List<String> command = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
        ports.forEach((port) -> command.add(HOST + ":" + port));
        command.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
        run(command, "redis-cli --cluster create");
        waitFor("the cluster to agree on its slots",
                () -> ports.stream().allMatch((port) -> clusterOk(port) && knowsAll(port, ports.size())));
    }

    private void startSentinel() throws IOException {
        List<Integer> ports = freePorts(3, false);
        int master = ports.get(0);
        int replica = ports.get(1);
        int sentinel = ports.get(2);
        start(master, List.of());
        start(replica, List.of("--replicaof", HOST, Integer.toString(master)));
        waitFor("the replica to sync", () -> cli(replica, "INFO", "replication").contains("master_link_status:up"));
        Path config = this.directory.resolve("sentinel-" + sentinel + ".conf");
        Files.writeString(config,
                String.join("\n", "port " + sentinel, "bind " + HOST, "dir " + this.directory,
                        "sentinel monitor " + MASTER_NAME + " " + HOST + " " + master + " 1",
                        "sentinel down-after-milliseconds " + MASTER_NAME + " " + NODE_TIMEOUT_MILLIS,
                        "sentinel failover-timeout " + MASTER_NAME + " 10000", ""));
        this.servers.put(sentinel, launch(sentinel, List.of("redis-server", config.toString(), "--sentinel")));
        this.sentinels.add(sentinel);
        awaitPing(sentinel);
        waitFor("the Sentinel to see the replica",
                () -> cli(sentinel, "SENTINEL", "replicas", MASTER_NAME).contains(Integer.toString(replica)));
    }

    private void start(int port, List<String> options) {
        List<String> command = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port), "--bind", HOST,
                "--dir", this.directory.toString(), "--save", "", "--appendonly", "no", "--daemonize", "no"));
        command.addAll(options);
        this.servers.put(port, launch(port, command));
        awaitPing(port);
    }

    private Process launch(int port, List<String> command) {
        try {
            File log = this.directory.resolve("redis-" + port + ".log").toFile();
            return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log)
                .directory(this.directory.toFile())
                .start();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not start " + command, ex);
        }
    }

    private void awaitPing(int port) {
        waitFor("redis on port " + port + " to answer", () -> "PONG".equals(cli(port, "PING").trim()));
    }

    private boolean clusterOk(int port) {
        return cli(port, "CLUSTER", "INFO").contains("cluster_state:ok");
    }

    private boolean knowsAll(int port, int nodes) {
        return cli(port, "CLUSTER", "INFO").contains("cluster_known_nodes:" + nodes);
    }

    private int anyLive() {
        return this.servers.entrySet()
            .stream()
            .filter((server) -> server.getValue().isAlive())
            .map(Map.Entry::getKey)
            .findFirst()
            .orElseThrow(() -> new IllegalStateException("No Redis server of this test is alive"));
    }

    /** Runs {@code redis-cli -p PORT ARGS...}, answering its output ("" if it fails). */
    private String cli(int port, String... arguments) {
        List<String> command = new ArrayList<>(List.of("redis-cli", "-h", HOST, "-p", Integer.toString(port)));
        command.addAll(List.of(arguments));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] output = process.getInputStream().readAllBytes();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return "";
            }
            return new String(output, StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            return "";
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    private void run(List<String> command, String what) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(this.directory.resolve("cli.log").toFile())
                .start();
            if (!process.waitFor(STARTUP.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(what + " did not finish within " + STARTUP);
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException(what + " failed: "
                        + Files.readString(this.directory.resolve("cli.log"), StandardCharsets.UTF_8));
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException(what + " could not run", ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(what + " interrupted", ex);
        }
    }

    private void stop() throws IOException {
        this.servers.values().forEach(Process::destroyForcibly);
        for (Process process : this.servers.values()) {
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
        this.servers.clear();
        if (Files.isDirectory(this.directory) && this.directory.getFileName().toString().startsWith("llm-throttle")) {
            try (Stream<Path> files = Files.walk(this.directory)) {
                for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(file);
                }
            }
        }
    }

    /** Waits for a condition, polling, for at most {@link #STARTUP}. */
    private static void waitFor(String what, BooleanSupplier condition) {
        await(what).atMost(STARTUP).pollInterval(Duration.ofMillis(50)).until(condition::getAsBoolean);
    }

    /**
     * Free loopback ports ({@link TcpForwarder#freePort()}); for a cluster, ports whose
     * bus port (10000 above) is free too.
     */
    private static List<Integer> freePorts(int count, boolean withBus) throws IOException {
        List<Integer> ports = new ArrayList<>();
        while (ports.size() < count) {
            int port = TcpForwarder.freePort();
            if (!ports.contains(port) && (!withBus || free(port + 10000))) {
                ports.add(port);
            }
        }
        return ports;
    }

    private static boolean free(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName(HOST))) {
            return true;
        }
        catch (IOException ex) {
            return false;
        }
    }

    private static boolean installed(String binary) {
        String path = System.getenv("PATH");
        return path != null && Stream.of(path.split(File.pathSeparator))
            .anyMatch((directory) -> Files.isExecutable(Path.of(directory, binary)));
    }

}

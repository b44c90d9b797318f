package io.github.llmthrottle.sample;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A headless Debian {@code chromium} driven over the DevTools protocol with the JDK's own
 * {@link WebSocket}: no Node.js, no Selenium, no Playwright. Loopback only; the browser,
 * its children and its temporary profile are removed on {@link #close()}.
 *
 * <p>
 * Also a small command line tool that takes the dashboard screenshot in {@code docs/}:
 * {@code HeadlessChromium URL OUT.png [SECONDS_TO_WAIT]}.
 */
final class HeadlessChromium implements AutoCloseable {

    static final Path CHROMIUM = Path.of(System.getProperty("chromium.path", "/usr/bin/chromium"));

    private static final Pattern DEVTOOLS_URL = Pattern.compile("DevTools listening on (ws://\\S+)");

    private static final JsonMapper json = JsonMapper.builder().build();

    private final Process process;

    private final Path profile;

    private final WebSocket socket;

    private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();

    private final AtomicInteger ids = new AtomicInteger();

    private volatile @Nullable CompletableFuture<JsonNode> loaded;

    private final Duration commandTimeout;

    private HeadlessChromium(Process process, Path profile, WebSocket socket, Listener listener,
            Duration commandTimeout) {
        this.process = process;
        this.profile = profile;
        this.socket = socket;
        this.commandTimeout = commandTimeout;
        listener.owner = this;
    }

    /**
     * Makes sure {@code /usr/bin/chromium} is there, installing Debian's package when it
     * is missing and this process may (root, {@code apt-get} present).
     * @param timeout how long the installation may take
     * @return {@code null} when the browser is available, else why it is not
     */
    static @Nullable String ensureInstalled(Duration timeout) {
        if (Files.isExecutable(CHROMIUM)) {
            return null;
        }
        if (!Files.isExecutable(Path.of("/usr/bin/apt-get"))) {
            return CHROMIUM + " is missing and apt-get is not available to install it";
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            return CHROMIUM + " is missing and installing it needs root (run: apt-get install -y chromium)";
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            run(deadline, "apt-get", "update", "-qq");
            run(deadline, "apt-get", "install", "-y", "-qq", "chromium");
        }
        catch (IOException | RuntimeException ex) {
            return CHROMIUM + " is missing and could not be installed: " + ex.getMessage();
        }
        return Files.isExecutable(CHROMIUM) ? null : CHROMIUM + " is still missing after apt-get install -y chromium";
    }

    private static void run(long deadline, String... command) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("DEBIAN_FRONTEND", "noninteractive");
        Process process = builder.start();
        try {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !process.waitFor(left, TimeUnit.NANOSECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " timed out");
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " exited with " + process.exitValue());
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IllegalStateException("interrupted", ex);
        }
    }

    /**
     * Starts the browser with an empty page of the given viewport.
     * @param width viewport width
     * @param height viewport height
     * @param timeout how long the start may take
     * @return the browser
     * @throws IOException if it cannot be started
     */
    static HeadlessChromium launch(int width, int height, Duration timeout) throws IOException {
        Path profile = Files.createTempDirectory("llmthrottle-chromium-");
        List<String> command = List.of(CHROMIUM.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-extensions", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
                "--user-data-dir=" + profile, "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
                "--window-size=" + width + "," + height, "about:blank");
        Process process = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            String browserUrl = devToolsUrl(process, timeout);
            URI browser = URI.create(browserUrl);
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            String pageUrl = pageWebSocketUrl(http, browser.getHost() + ":" + browser.getPort(), timeout);
            Listener listener = new Listener();
            WebSocket socket = http.newWebSocketBuilder()
                .connectTimeout(Duration.ofSeconds(5))
                .buildAsync(URI.create(pageUrl), listener)
                .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            HeadlessChromium chromium = new HeadlessChromium(process, profile, socket, listener, timeout);
            chromium.send("Page.enable", Map.of());
            chromium.send("Runtime.enable", Map.of());
            chromium.send("Emulation.setDeviceMetricsOverride",
                    Map.of("width", width, "height", height, "deviceScaleFactor", 1, "mobile", false));
            return chromium;
        }
        catch (IOException | RuntimeException ex) {
            destroy(process, profile);
            throw ex;
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            destroy(process, profile);
            throw new IOException("interrupted while starting chromium", ex);
        }
        catch (ExecutionException | TimeoutException ex) {
            destroy(process, profile);
            throw new IOException("cannot connect to chromium's DevTools: " + ex, ex);
        }
    }

    private static String devToolsUrl(Process process, Duration timeout) throws IOException {
        CompletableFuture<String> url = new CompletableFuture<>();
        List<String> lines = new ArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader err = new BufferedReader(
                    new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = err.readLine()) != null) {
                    Matcher matcher = DEVTOOLS_URL.matcher(line);
                    if (matcher.find()) {
                        url.complete(matcher.group(1));
                    }
                    else if (!url.isDone() && lines.size() < 50) {
                        synchronized (lines) {
                            lines.add(line);
                        }
                    }
                }
            }
            catch (IOException ex) {
                // the browser went away
            }
            url.completeExceptionally(new IOException("chromium exited before DevTools listened"));
        }, "chromium-stderr");
        reader.setDaemon(true);
        reader.start();
        try {
            return url.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", ex);
        }
        catch (ExecutionException | TimeoutException ex) {
            synchronized (lines) {
                throw new IOException("chromium did not start its DevTools server: " + String.join("\n", lines), ex);
            }
        }
    }

    private static String pageWebSocketUrl(HttpClient http, String hostPort, Duration timeout)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(URI.create("http://" + hostPort + "/json/list")).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            for (JsonNode target : json.readTree(response.body())) {
                if ("page".equals(target.path("type").asString(""))) {
                    return target.path("webSocketDebuggerUrl").asString();
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("chromium has no page target: " + response.body());
            }
            Thread.sleep(100);
        }
    }

    /**
     * Sends a DevTools command and waits for its result.
     * @param method the method
     * @param params its parameters
     * @return the result
     */
    JsonNode send(String method, Map<String, ?> params) {
        int id = this.ids.incrementAndGet();
        CompletableFuture<JsonNode> answer = new CompletableFuture<>();
        this.pending.put(id, answer);
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("id", id);
        message.put("method", method);
        message.put("params", params);
        try {
            synchronized (this.socket) {
                this.socket.sendText(json.writeValueAsString(message), true).get(5, TimeUnit.SECONDS);
            }
            JsonNode response = answer.get(this.commandTimeout.toMillis(), TimeUnit.MILLISECONDS);
            if (response.has("error")) {
                throw new IllegalStateException(method + " failed: " + response.get("error"));
            }
            return response.path("result");
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", ex);
        }
        catch (ExecutionException | TimeoutException ex) {
            throw new IllegalStateException(method + " got no answer: " + ex, ex);
        }
        finally {
            this.pending.remove(id);
        }
    }

    /**
     * Opens a page and waits for its load event.
     * @param url the page
     */
    void navigate(String url) {
        CompletableFuture<JsonNode> loaded = new CompletableFuture<>();
        this.loaded = loaded;
        JsonNode result = send("Page.navigate", Map.of("url", url));
        if (result.hasNonNull("errorText")) {
            throw new IllegalStateException("cannot open " + url + ": " + result.get("errorText"));
        }
        try {
            loaded.get(this.commandTimeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", ex);
        }
        catch (ExecutionException | TimeoutException ex) {
            throw new IllegalStateException(url + " did not load: " + ex, ex);
        }
    }

    /**
     * Evaluates a JavaScript expression in the page.
     * @param expression the expression (a promise is awaited)
     * @return its value, as JSON
     */
    JsonNode evaluate(String expression) {
        JsonNode result = send("Runtime.evaluate",
                Map.of("expression", expression, "returnByValue", true, "awaitPromise", true));
        if (result.has("exceptionDetails")) {
            throw new IllegalStateException(
                    "evaluation of " + expression + " failed: " + result.get("exceptionDetails"));
        }
        return result.path("result").path("value");
    }

    /**
     * Waits until an expression is truthy in the page.
     * @param expression the expression
     * @param timeout how long to wait
     * @return whether it became truthy in time
     */
    boolean waitFor(String expression, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (evaluate("(() => { try { return Boolean(" + expression + "); } catch (e) { return false; } })()")
                .asBoolean(false)) {
                return true;
            }
            Thread.sleep(200);
        }
        return false;
    }

    byte[] screenshot() {
        return Base64.getDecoder()
            .decode(send("Page.captureScreenshot", Map.of("format", "png")).path("data").asString());
    }

    String html() {
        return evaluate("document.documentElement.outerHTML").asString();
    }

    @Override
    public void close() {
        try {
            this.socket.sendClose(WebSocket.NORMAL_CLOSURE, "").get(2, TimeUnit.SECONDS);
        }
        catch (Exception ex) {
            this.socket.abort();
        }
        destroy(this.process, this.profile);
    }

    private static void destroy(Process process, Path profile) {
        List<ProcessHandle> children = process.descendants().toList();
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        // the renderers and helpers end with the browser; wait for them, and kill the
        // ones that linger
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        for (ProcessHandle child : children) {
            try {
                child.onExit().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            catch (ExecutionException | TimeoutException ex) {
                // killed below
            }
        }
        children.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
        try (Stream<Path> files = Files.walk(profile)) {
            files.sorted(Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
        }
        catch (IOException | UncheckedIOException ex) {
            // a temporary directory: best effort
        }
    }

    private static final class Listener implements WebSocket.Listener {

        private final StringBuilder text = new StringBuilder();

        private volatile @Nullable HeadlessChromium owner;

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            this.text.append(data);
            if (last) {
                String message = this.text.toString();
                this.text.setLength(0);
                JsonNode node = json.readTree(message);
                HeadlessChromium owner = this.owner;
                if (owner != null && "Page.loadEventFired".equals(node.path("method").asString(""))) {
                    CompletableFuture<JsonNode> loaded = owner.loaded;
                    if (loaded != null) {
                        loaded.complete(node);
                    }
                }
                if (owner != null && node.has("id")) {
                    CompletableFuture<JsonNode> answer = owner.pending.get(node.get("id").asInt());
                    if (answer != null) {
                        answer.complete(node);
                    }
                }
            }
            webSocket.request(1);
            return null;
        }

    }

    /**
     * Takes a screenshot of a page after it has run a while.
     * @param args the URL, the PNG file to write, and optionally the seconds to wait (15)
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        String url = args[0];
        Path out = Path.of(args[1]);
        long seconds = (args.length > 2) ? Long.parseLong(args[2]) : 15;
        int width = Integer.getInteger("width", 1400);
        int height = Integer.getInteger("height", 1000);
        try (HeadlessChromium chromium = launch(width, height, Duration.ofSeconds(30))) {
            chromium.navigate(url);
            Thread.sleep(seconds * 1000);
            Files.write(out, chromium.screenshot());
        }
        System.out.println("wrote " + out);
    }

}

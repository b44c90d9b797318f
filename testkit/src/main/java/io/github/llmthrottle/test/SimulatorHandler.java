package io.github.llmthrottle.test;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.github.llmthrottle.test.StatsRecorder.Outcome;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * Serves one HTTP exchange: routing, authentication, validation, faults, admission, and
 * the (streamed or complete) response.
 */
final class SimulatorHandler implements HttpHandler {

    /** The key of the count_tokens request limit, which no model shares. */
    private static final String COUNT_TOKENS = "count_tokens";

    private final SimulatorState simulator;

    private final SimulatorResponses responses;

    private final AnswerWriter answers;

    SimulatorHandler(SimulatorState simulator) {
        this.simulator = simulator;
        this.responses = new SimulatorResponses(simulator);
        this.answers = new AnswerWriter(simulator, this.responses);
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        boolean drop = false;
        try {
            route(exchange);
        }
        catch (DropConnection ex) {
            drop = true;
        }
        catch (RuntimeException ex) {
            if (exchange.getResponseCode() == -1) {
                SimulatorResponses.send(exchange, 500,
                        "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Simulator error: "
                                + ex.getClass().getSimpleName() + "\"}}",
                        new LinkedHashMap<>());
            }
            else {
                drop = true;
            }
        }
        finally {
            if (!drop) {
                exchange.close();
            }
        }
        if (drop) {
            // The server closes the connection when the handler fails, without a response
            // or without the final chunk of a streamed body, so the client sees an
            // IOException.
            throw new DropConnection();
        }
    }

    private void route(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        Download download = Download.of(path);
        if (download != null) {
            download(exchange, download);
            return;
        }
        Dialect dialect;
        boolean countTokens = false;
        switch (path) {
            case "/v1/messages" -> dialect = Dialect.ANTHROPIC;
            case "/v1/messages/count_tokens" -> {
                dialect = Dialect.ANTHROPIC;
                countTokens = true;
            }
            case "/v1/chat/completions", "/chat/completions" -> dialect = Dialect.OPENAI;
            case "/v1/responses", "/responses" -> dialect = Dialect.OPENAI_RESPONSES;
            case "/api/chat" -> dialect = Dialect.OLLAMA;
            default -> {
                Dialect guess = (path.contains("chat") || path.contains("completions")
                        || (exchange.getRequestHeaders().getFirst("x-api-key") == null
                                && exchange.getRequestHeaders().getFirst("authorization") != null)) ? Dialect.OPENAI
                                        : Dialect.ANTHROPIC;
                exchange.getRequestBody().readAllBytes();
                ErrorSpec notFound = guess.error(404);
                this.responses.sendError(exchange, guess, guess.newRequestId(),
                        new ErrorSpec(404, notFound.type(), notFound.code(),
                                (guess == Dialect.ANTHROPIC) ? "Not Found" : "Invalid URL (POST " + path + ")"),
                        null, new LinkedHashMap<>());
                return;
            }
        }
        byte[] bytes = exchange.getRequestBody().readAllBytes();
        String requestId = dialect.newRequestId();
        if (!"POST".equalsIgnoreCase(exchange.getRequestMethod())) {
            ErrorSpec error = dialect.error(405);
            this.responses.sendError(exchange, dialect, requestId,
                    new ErrorSpec(405, error.type(), null, "Method Not Allowed"), null, new LinkedHashMap<>());
            return;
        }
        StatsRecorder stats = this.simulator.recorder();
        String apiKey = apiKey(exchange);
        Boolean missing = this.simulator.rejectKey(apiKey);
        if (missing != null) {
            if (!countTokens) {
                stats.attempt(null);
                stats.outcome(null, Outcome.OTHER_ERROR);
            }
            this.responses.sendError(exchange, dialect, requestId, dialect.unauthorized(missing), null,
                    new LinkedHashMap<>());
            return;
        }
        JsonNode body;
        try {
            body = Dialect.JSON.readTree(bytes);
        }
        catch (JacksonException ex) {
            body = null;
        }
        if (body == null || !body.isObject()) {
            if (!countTokens) {
                stats.attempt(null);
                stats.outcome(null, Outcome.OTHER_ERROR);
            }
            this.responses.sendError(exchange, dialect, requestId, dialect.unparseable(), null, new LinkedHashMap<>());
            return;
        }
        if (countTokens) {
            countTokens(exchange, body, apiKey, requestId);
            return;
        }
        SimRequest request;
        try {
            request = dialect.parse(body, apiKey);
        }
        catch (InvalidRequest ex) {
            stats.attempt(null);
            stats.outcome(null, Outcome.OTHER_ERROR);
            this.responses.sendError(exchange, dialect, requestId, dialect.invalid(ex), null, new LinkedHashMap<>());
            return;
        }
        String model = request.model();
        stats.attempt(model);
        int forModel = this.simulator.enter(model);
        int global = this.simulator.enterGlobal();
        stats.inFlight(model, global, forModel);
        // The call leaves before the last bytes of its response go out: a client that
        // sends its
        // next call as soon as it has the answer must not find this one still in flight.
        AtomicBoolean left = new AtomicBoolean();
        Runnable leave = () -> {
            if (left.compareAndSet(false, true)) {
                this.simulator.exit(model);
            }
        };
        SimulatorResponses.onLeave(exchange, leave);
        try {
            serve(exchange, request, requestId, global, forModel);
        }
        finally {
            leave.run();
        }
    }

    /**
     * Counts tokens against the count_tokens request limit of the API key, which is
     * separate from every model's limits.
     */
    private void countTokens(HttpExchange exchange, JsonNode body, String apiKey, String requestId) throws IOException {
        Dialect dialect = Dialect.ANTHROPIC;
        int tokens;
        try {
            tokens = ((AnthropicDialect) dialect).countTokens(body);
        }
        catch (InvalidRequest ex) {
            this.responses.sendError(exchange, dialect, requestId, dialect.invalid(ex), null, new LinkedHashMap<>());
            return;
        }
        RateLimiter limiter = this.simulator.countTokensLimiter();
        RateLimiter.Key key = new RateLimiter.Key(apiKey, COUNT_TOKENS);
        RateLimiter.Rejection rejection = limiter.tryAdmit(key, new long[] { 1, 0, 0, 0 });
        Map<String, String> headers = new LinkedHashMap<>(
                dialect.rateLimitHeaders(limiter.levels(key), this.simulator.now(), this.simulator.roundRemaining()));
        if (rejection != null) {
            this.responses.sendError(exchange, dialect, requestId, dialect.rateLimited(rejection, COUNT_TOKENS),
                    retryAfter(rejection), headers);
            return;
        }
        headers.put(dialect.requestIdHeader(), requestId);
        this.simulator.overrideHeaders(headers);
        SimulatorResponses.send(exchange, 200, "{\"input_tokens\":" + tokens + "}", headers);
    }

    /**
     * Streams a download of the configured size, generated as it is written; downloads
     * are not rate limited.
     */
    private void download(HttpExchange exchange, Download download) throws IOException {
        exchange.getRequestBody().readAllBytes();
        Dialect dialect = (exchange.getRequestHeaders().getFirst("x-api-key") == null
                && exchange.getRequestHeaders().getFirst("authorization") != null) ? Dialect.OPENAI : Dialect.ANTHROPIC;
        String requestId = dialect.newRequestId();
        if (!"GET".equalsIgnoreCase(exchange.getRequestMethod())) {
            ErrorSpec error = dialect.error(405);
            this.responses.sendError(exchange, dialect, requestId,
                    new ErrorSpec(405, error.type(), null, "Method Not Allowed"), null, new LinkedHashMap<>());
            return;
        }
        Boolean missing = this.simulator.rejectKey(apiKey(exchange));
        if (missing != null) {
            this.responses.sendError(exchange, dialect, requestId, dialect.unauthorized(missing), null,
                    new LinkedHashMap<>());
            return;
        }
        long length = download.length(this.simulator.downloadBytes());
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(dialect.requestIdHeader(), requestId);
        headers.put("content-type", download.contentType());
        this.simulator.overrideHeaders(headers);
        SimulatorResponses.apply(exchange.getResponseHeaders(), headers);
        exchange.sendResponseHeaders(200, (length == 0) ? -1 : length);
        try (OutputStream out = exchange.getResponseBody()) {
            download.write(out, length);
        }
        catch (InterruptedIOException ex) {
            // The simulator is closing.
            throw new DropConnection();
        }
    }

    private static @Nullable String retryAfter(RateLimiter.Rejection rejection) {
        return rejection.neverFits() ? null
                : Long.toString(Math.max(1, (rejection.nanosToWait() + 999_999_999L) / 1_000_000_000L));
    }

    private void serve(HttpExchange exchange, SimRequest request, String requestId, int global, int forModel)
            throws IOException {
        Dialect dialect = request.dialect();
        String model = request.model();
        StatsRecorder stats = this.simulator.recorder();
        Fault fault = this.simulator.pollScript(model);
        boolean scripted = fault != null;
        if (fault == null || fault.isOk()) {
            Fault override = this.simulator.activeOutage(model);
            if (override == null) {
                SimulatorFaults.ConcurrencyLimit cap = this.simulator.exceededConcurrency(model, global, forModel);
                if (cap != null) {
                    this.responses.sendError(exchange, request, requestId,
                            dialect.concurrencyExceeded(cap.status(), cap.max()), null,
                            (fault != null) ? fault : Fault.ok());
                    return;
                }
                if (!scripted) {
                    override = this.simulator.randomFault(model);
                }
            }
            if (override != null) {
                fault = override;
            }
        }
        if (fault == null) {
            fault = Fault.ok();
        }
        pause(fault.delayValue());
        Fault.Kind kind = fault.kind();
        if (!request.stream() && kind == Fault.Kind.STREAM_ERROR) {
            kind = Fault.Kind.OVERLOADED;
        }
        if (!request.stream() && kind == Fault.Kind.STREAM_CUT) {
            kind = Fault.Kind.RESET;
        }
        switch (kind) {
            case RESET -> {
                stats.outcome(model, Outcome.RESET);
                throw new DropConnection();
            }
            case ERROR -> {
                this.responses.sendError(exchange, request, requestId,
                        dialect.error(fault.status()).withOverrides(fault), null, fault);
                return;
            }
            case OVERLOADED -> {
                this.responses.sendError(exchange, request, requestId, dialect.overloaded().withOverrides(fault), null,
                        fault);
                return;
            }
            case QUOTA -> {
                this.responses.sendError(exchange, request, requestId,
                        dialect.quotaExceeded(this.simulator.now()).withOverrides(fault), null, fault);
                return;
            }
            default -> {
                // OK, STREAM_ERROR and STREAM_CUT go through admission
            }
        }
        RateLimiter.Key key = new RateLimiter.Key(request.apiKey(), model);
        request = this.simulator.lookUpCache(request);
        RateLimiter.Rejection rejection = this.simulator.limiter().tryAdmit(key, dialect.demand(request));
        if (rejection != null) {
            this.responses.sendError(exchange, request, requestId, dialect.rateLimited(rejection, model),
                    retryAfter(rejection), fault);
            return;
        }
        this.simulator.commitCache(request);
        long second = this.simulator.now().getEpochSecond();
        stats.admitted(model, second, request.countedInputTokens(), request.cache().read(), request.cache().written());
        int ceiling = request.outputCeiling();
        int wanted = this.simulator.outputTokens().outputTokens(model, request.inputTokens(), ceiling);
        int output = Math.max(1, Math.min(ceiling, wanted));
        boolean maxed = wanted >= ceiling;
        if (request.stream()) {
            this.answers.stream(exchange, request, requestId, key, fault, kind, second, output, maxed);
        }
        else {
            this.answers.complete(exchange, request, requestId, key, fault, second, output, maxed);
        }
    }

    private static String apiKey(HttpExchange exchange) {
        String key = exchange.getRequestHeaders().getFirst("x-api-key");
        if (key != null && !key.isBlank()) {
            return key.trim();
        }
        String authorization = exchange.getRequestHeaders().getFirst("authorization");
        if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return authorization.substring(7).trim();
        }
        return "";
    }

    /**
     * Sleeps for the duration, or drops the connection when the simulator closes
     * meanwhile.
     */
    static void pause(Duration duration) {
        if (duration.isZero() || duration.isNegative()) {
            return;
        }
        try {
            Thread.sleep(duration.toMillis(), (int) (duration.toNanos() % 1_000_000L));
        }
        catch (InterruptedException ex) {
            // The simulator is closing.
            Thread.currentThread().interrupt();
            throw new DropConnection();
        }
    }

    /** Ends an exchange by closing its connection without a (complete) response. */
    static final class DropConnection extends RuntimeException {

        DropConnection() {
            super("Connection dropped by the simulator", null, false, false);
        }

    }

}

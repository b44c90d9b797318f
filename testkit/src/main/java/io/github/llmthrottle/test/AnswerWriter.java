package io.github.llmthrottle.test;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import com.sun.net.httpserver.HttpExchange;
import io.github.llmthrottle.test.SimulatorHandler.DropConnection;
import io.github.llmthrottle.test.StatsRecorder.Outcome;

/**
 * Answers a call that was admitted: the whole completion after its latency, or a stream
 * of server-sent events (Ollama's: of JSON lines) paced by the per-token latency, failed
 * or cut as its fault says. Either way its buckets are settled with the tokens it
 * produced and its outcome is recorded before the client can see the end of the answer,
 * so that buckets and stats read right after it are complete.
 */
final class AnswerWriter {

    private final SimulatorState simulator;

    private final SimulatorResponses responses;

    AnswerWriter(SimulatorState simulator, SimulatorResponses responses) {
        this.simulator = simulator;
        this.responses = responses;
    }

    /**
     * Answers with the whole completion once its latency has passed.
     */
    void complete(HttpExchange exchange, SimRequest request, String requestId, RateLimiter.Key key, Fault fault,
            long second, int output, boolean maxed) throws IOException {
        Dialect dialect = request.dialect();
        try {
            SimulatorHandler
                .pause(this.simulator.baseLatency().plus(this.simulator.perTokenLatency().multipliedBy(output)));
        }
        catch (DropConnection ex) {
            settle(request, key, second, 0, Outcome.RESET);
            throw ex;
        }
        dialect.settle(this.simulator.limiter(), key, request, output);
        this.simulator.recorder().output(request.model(), second, output);
        Instant now = this.simulator.now();
        String body = dialect.completion(request, dialect.newMessageId(), now, Dialect.text(0, output), output, maxed);
        Map<String, String> headers = this.responses.headers(request, requestId, null, fault);
        // Recorded before the client can see the response, so that stats read right after
        // it are complete.
        this.simulator.recorder().outcome(request.model(), Outcome.SUCCESS);
        SimulatorResponses.send(exchange, 200, body, headers);
    }

    /**
     * Answers with a stream of events paced by the per-token latency, failed or cut after
     * {@link Fault#afterEvents()} deltas when {@code kind} says so.
     */
    void stream(HttpExchange exchange, SimRequest request, String requestId, RateLimiter.Key key, Fault fault,
            Fault.Kind kind, long second, int output, boolean maxed) throws IOException {
        Dialect dialect = request.dialect();
        StatsRecorder stats = this.simulator.recorder();
        boolean trigger = kind == Fault.Kind.STREAM_ERROR || kind == Fault.Kind.STREAM_CUT;
        int emitted = 0;
        boolean settled = false;
        try {
            Map<String, String> headers = this.responses.headers(request, requestId, null, fault);
            headers.putIfAbsent("content-type", dialect.streamContentType());
            headers.putIfAbsent("cache-control", "no-cache");
            SimulatorResponses.apply(exchange.getResponseHeaders(), headers);
            exchange.sendResponseHeaders(200, 0);
            OutputStream out = exchange.getResponseBody();
            String id = dialect.newMessageId();
            Instant now = this.simulator.now();
            write(out, dialect.streamStart(request, id, now));
            SimulatorHandler.pause(this.simulator.baseLatency());
            int deltas = 0;
            int perEvent = this.simulator.tokensPerEvent();
            while (emitted < output && !(trigger && deltas == fault.afterEvents())) {
                int tokens = Math.min(perEvent, output - emitted);
                SimulatorHandler.pause(this.simulator.perTokenLatency().multipliedBy(tokens));
                write(out, List.of(dialect.streamDelta(request, id, now, Dialect.text(emitted, tokens), deltas)));
                emitted += tokens;
                deltas++;
            }
            if (kind == Fault.Kind.STREAM_CUT) {
                throw new DropConnection();
            }
            // Settled and recorded before the last events, so that buckets and stats read
            // right after the stream ends are complete.
            settled = true;
            settle(request, key, second, emitted, Outcome.SUCCESS);
            SimulatorResponses.leave(exchange);
            if (kind == Fault.Kind.STREAM_ERROR) {
                stats.streamError(request.model());
                write(out, List.of(dialect.streamError(request, id, now, deltas, fault)));
            }
            else {
                write(out, dialect.streamEnd(request, id, now, emitted, maxed, deltas));
            }
        }
        catch (IOException ex) {
            // The client went away mid-stream.
            throw new DropConnection();
        }
        finally {
            if (!settled) {
                settle(request, key, second, emitted, Outcome.RESET);
            }
        }
    }

    private void settle(SimRequest request, RateLimiter.Key key, long second, int emitted, Outcome outcome) {
        request.dialect().settle(this.simulator.limiter(), key, request, emitted);
        this.simulator.recorder().output(request.model(), second, emitted);
        this.simulator.recorder().outcome(request.model(), outcome);
    }

    private static void write(OutputStream out, List<String> events) throws IOException {
        for (String event : events) {
            out.write(event.getBytes(StandardCharsets.UTF_8));
        }
        out.flush();
    }

}

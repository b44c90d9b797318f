package io.github.llmthrottle.client;

import java.io.IOException;
import java.io.InputStream;

import io.github.llmthrottle.limit.Permit;
import io.github.llmthrottle.retry.Cancellation;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * Runs one {@link ThrottledAttempt} on the caller's thread: admission waits on it, the
 * exchange and the reading of the body block it. What is done with each step's outcome is
 * the attempt's, shared with the calls that do not block ({@link AsyncCall}).
 */
final class BlockingAttempt {

    private BlockingAttempt() {
    }

    /**
     * Runs the attempt: admit, send, then classify and settle what came back.
     * @param <R> the adapter's response type
     * @param attempt the attempt
     * @param exchange sends it
     * @param held the attempt's admission, waited for ahead of the call, or {@code null}
     * to wait for it here
     * @return the response to hand back, a success or an error that is not retried
     * @throws IOException an I/O error, or an interrupt while waiting for admission
     */
    static <R extends ProviderResponse> ThrottledResponse<R> run(ThrottledAttempt<R> attempt,
            ProviderExchange<R> exchange, @Nullable HeldAdmission held) throws IOException {
        long queued = (held != null) ? held.queuedNanos : attempt.context().pipeline().time().nanoTime();
        AttemptTokens tokens = (held != null) ? held.tokens() : AttemptTokens.admit(attempt.context(), attempt.target);
        attempt.admitted(tokens, queued);
        try (Observation.Scope observing = attempt.openScope()) {
            return send(attempt, exchange, tokens);
        }
        catch (IOException | RuntimeException | Error ex) {
            attempt.failed(ex);
            throw ex;
        }
        finally {
            attempt.finish();
        }
    }

    private static <R extends ProviderResponse> ThrottledResponse<R> send(ThrottledAttempt<R> attempt,
            ProviderExchange<R> exchange, AttemptTokens tokens) throws IOException {
        R response;
        try {
            response = (attempt.redirect != null) ? exchange.execute(attempt.redirect) : exchange.execute();
        }
        catch (IOException ex) {
            throw attempt.notSent(tokens, ex, Cancellation.isCancellation(ex));
        }
        catch (RuntimeException | Error ex) {
            tokens.permit().release(Permit.Outcome.IGNORED);
            throw ex;
        }
        try {
            ThrottledResponse<R> streamed = attempt.received(response, tokens);
            if (streamed != null) {
                return streamed;
            }
            if (response.status() / 100 != 2) {
                byte[] errorBody;
                try (response; InputStream in = response.body()) {
                    errorBody = in.readNBytes(ResponseBodies.MAX_ERROR_BODY);
                }
                try {
                    return attempt.refused(response, tokens, errorBody);
                }
                finally {
                    // nobody hears of a 429 before every instance holds its pause
                    attempt.sharedPause().join();
                }
            }
            byte[] body;
            try (response; InputStream in = response.body()) {
                body = ResponseBodies.readBody(in, response.headers().contentLength());
            }
            catch (IOException ex) {
                throw attempt.bodyFailed(response, tokens, ex);
            }
            return attempt.answered(response, tokens, body);
        }
        catch (IOException | RuntimeException | Error ex) {
            tokens.permit().release(Permit.Outcome.IGNORED);
            response.close();
            throw ex;
        }
    }

}

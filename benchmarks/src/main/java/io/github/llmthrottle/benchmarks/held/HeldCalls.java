package io.github.llmthrottle.benchmarks.held;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.benchmarks.MessagesBodies;
import io.github.llmthrottle.limit.AdmissionRequest;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.LimiterState;
import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.limit.Permit;

import org.springframework.web.client.RestClient;

/**
 * The calls and limiter checks the held-load runs share: one call through the
 * {@code anthropicRestClient}, the warm-up, taking the minute's burst, and what the
 * limiters hold at the end.
 */
final class HeldCalls {

    private HeldCalls() {
    }

    static void warmUp(RestClient client, String body, int calls) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            Thread thread = new Thread(() -> {
                for (int i = 0; i < calls / 8; i++) {
                    post(client, body);
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
    }

    /**
     * Takes what the model's request bucket holds now (the minute's burst), so that the
     * run sees the steady rate from its first second.
     * @return the requests taken
     */
    static int drain(ModelLimiter limiter) throws InterruptedException {
        int taken = 0;
        while (true) {
            Permit permit;
            try {
                permit = limiter.acquire(new AdmissionRequest(Priority.NORMAL, null, 0, 0, Duration.ZERO));
            }
            catch (AdmissionTimeoutException ex) {
                return taken;
            }
            permit.release(Permit.Outcome.IGNORED);
            taken++;
        }
    }

    static LimiterState awaitIdle(ModelLimiter limiter) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        LimiterState state = limiter.state();
        while ((state.inFlight() != 0 || state.queued().total() != 0) && System.nanoTime() < deadline) {
            Thread.sleep(10);
            state = limiter.state();
        }
        return state;
    }

    static int inFlight(LimiterRegistry limiters) {
        return limiters.states()
            .values()
            .stream()
            .flatMap((models) -> models.values().stream())
            .mapToInt(LimiterState::inFlight)
            .sum();
    }

    static int queued(LimiterRegistry limiters) {
        return limiters.states()
            .values()
            .stream()
            .flatMap((models) -> models.values().stream())
            .mapToInt((state) -> state.queued().total())
            .sum();
    }

    static void post(RestClient client, String body) {
        MessagesBodies.post(client, body);
    }

}

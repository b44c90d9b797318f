package io.github.llmthrottle.benchmarks.held;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.llmthrottle.test.Fault;
import io.github.llmthrottle.test.LlmSimulator;
import org.jspecify.annotations.Nullable;

/**
 * The scheduled faults: every period a burst of 529s and, half a period later, a burst of
 * 429s with retry-after; the Redis restart at half time on a thread of its own.
 */
final class FaultSchedule {

    private final Soak.Settings settings;

    private final LlmSimulator simulator;

    private final @Nullable RedisProcess redis;

    private long nextBurst529;

    private long nextBurst429;

    private boolean redisRestarted;

    private @Nullable Thread restart;

    private final Map<String, Long> injected = new LinkedHashMap<>();

    private final AtomicLong redisStopped = new AtomicLong(-1);

    private final AtomicLong redisStarted = new AtomicLong(-1);

    FaultSchedule(Soak.Settings settings, LlmSimulator simulator, @Nullable RedisProcess redis) {
        this.settings = settings;
        this.simulator = simulator;
        this.redis = redis;
        long period = settings.faultPeriod().toNanos();
        this.nextBurst529 = period / 4;
        this.nextBurst429 = period * 3 / 4;
    }

    /** Injects what is due at {@code elapsed} nanoseconds into the run. */
    void runDue(long elapsed) {
        long period = this.settings.faultPeriod().toNanos();
        if (this.settings.faults() && elapsed >= this.nextBurst529) {
            this.simulator.script(Soak.MODEL, Fault.overloaded(), Fault.overloaded(), Fault.overloaded(),
                    Fault.overloaded());
            this.injected.merge("529 bursts (4 in a row)", 1L, Long::sum);
            this.nextBurst529 += period;
        }
        if (this.settings.faults() && elapsed >= this.nextBurst429) {
            Fault rateLimited = Fault.status(429).retryAfter("1");
            this.simulator.script(Soak.MODEL, rateLimited, rateLimited, rateLimited);
            this.injected.merge("429 bursts (3 in a row, retry-after 1)", 1L, Long::sum);
            this.nextBurst429 += period;
        }
        if (this.redis != null && !this.redisRestarted && elapsed >= this.settings.duration().toNanos() / 2) {
            this.redisRestarted = true;
            long start = System.nanoTime() - elapsed;
            this.restart = new Thread(() -> {
                try {
                    this.redis.stop();
                    this.redisStopped.set(System.nanoTime() - start);
                    Thread.sleep(this.settings.redisDown().toMillis());
                    this.redis.start();
                    this.redisStarted.set(System.nanoTime() - start);
                }
                catch (Exception ex) {
                    System.err.println("Redis restart failed: " + ex);
                }
            }, "soak-redis-restart");
            this.restart.start();
            this.injected.merge("Redis restarts", 1L, Long::sum);
        }
    }

    void awaitRedis() throws InterruptedException {
        if (this.restart != null) {
            this.restart.join();
        }
    }

    Map<String, Long> injected() {
        Map<String, Long> all = new LinkedHashMap<>(this.injected);
        if (this.redisStopped.get() >= 0) {
            all.put("Redis stopped at (s)", TimeUnit.NANOSECONDS.toSeconds(this.redisStopped.get()));
            all.put("Redis started again at (s)", TimeUnit.NANOSECONDS.toSeconds(this.redisStarted.get()));
        }
        return all;
    }

}

package io.github.llmthrottle.store.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.llmthrottle.routing.CircuitSettings;
import io.github.llmthrottle.routing.CircuitState;
import io.github.llmthrottle.routing.ModelCircuit;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import org.jspecify.annotations.Nullable;

/**
 * The Lua script of the circuits shared through Redis ({@link RedisCircuitStore}): the
 * state machine of {@link ModelCircuit}, one script run per acquisition, outcome or
 * reading, on the Redis server's time.
 *
 * <p>
 * The circuit is a hash under {@code KEY_PREFIX:{client:model}:circuit} (in the slot of
 * the model's buckets): {@code state} ({@code 0} closed, {@code 1} open, {@code 2}
 * half-open), {@code epoch} (changes of state so far), {@code failures} (consecutive,
 * while closed), {@code until} (the end of the open wait, server microseconds),
 * {@code succeeded} (probes that succeeded while half-open), {@code by} and {@code at}
 * (who changed the state last, when). The probes out while half-open are a sorted set
 * under {@code ...:circuit:probes}: each probe's token scored with when its place is
 * given back if its outcome never comes (a crashed instance), so at most the configured
 * number are out across the fleet. An open circuit whose wait is over turns half-open
 * when the script next runs. An outcome of an attempt granted at another epoch changes
 * nothing but its probe place. The hash expires a day after its last change.
 *
 * <p>
 * Arguments: the operation ({@code acquire}, {@code record} or {@code read}), the time to
 * use instead of the server's (microseconds, empty for the server's), the failure
 * threshold, the open wait and a probe's longest hold (microseconds), the probes, the
 * probe's token, the epoch of the grant and its outcome ({@code f} failure, {@code s}
 * success or another verdict, {@code n} none), the instance. The answer: the state, the
 * epoch, the failures, the rest of the open wait (microseconds), {@code 1} if an
 * acquisition was granted, and the probes out.
 */
final class RedisCircuitScript {

    static final String SOURCE = """
            local now = tonumber(ARGV[2])
            if now == nil then
              local time = redis.call('TIME')
              now = tonumber(time[1]) * 1000000 + tonumber(time[2])
            end
            local threshold, openWait, hold, probes = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
            local s = redis.call('HMGET', KEYS[1], 'state', 'epoch', 'failures', 'until', 'succeeded')
            local state, epoch, failures = tonumber(s[1]) or 0, tonumber(s[2]) or 0, tonumber(s[3]) or 0
            local untilOpen, succeeded = tonumber(s[4]) or 0, tonumber(s[5]) or 0
            local changed = false
            local function move(to)
              state, epoch, failures, succeeded, changed = to, epoch + 1, 0, 0, true
              redis.call('DEL', KEYS[2])
              if to == 1 then untilOpen = now + openWait else untilOpen = 0 end
              redis.call('HSET', KEYS[1], 'by', ARGV[10], 'at', string.format('%.17g', now))
            end
            if state == 1 and now >= untilOpen then move(2) end
            if state == 2 then redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', string.format('%.17g', now)) end
            local granted = 0
            if ARGV[1] == 'acquire' then
              if state == 0 then
                granted = 1
              elseif state == 2 and redis.call('ZCARD', KEYS[2]) < probes then
                redis.call('ZADD', KEYS[2], string.format('%.17g', now + hold), ARGV[7])
                redis.call('PEXPIRE', KEYS[2], math.ceil(hold / 1000))
                granted = 1
              end
            elseif ARGV[1] == 'record' and tonumber(ARGV[8]) == epoch then
              local probe = ARGV[7] ~= ''
              if probe then redis.call('ZREM', KEYS[2], ARGV[7]) end
              local outcome = ARGV[9]
              if outcome ~= 'n' then
                if state == 0 then
                  if outcome == 'f' then failures = failures + 1 else failures = 0 end
                  changed = true
                  if failures >= threshold then move(1) end
                elseif state == 2 and probe then
                  if outcome == 'f' then
                    move(1)
                  else
                    succeeded = succeeded + 1
                    changed = true
                    if succeeded >= probes then move(0) end
                  end
                end
              end
            end
            if changed then
              redis.call('HSET', KEYS[1], 'state', state, 'epoch', epoch, 'failures', failures,
                'until', string.format('%.17g', untilOpen), 'succeeded', succeeded)
              redis.call('PEXPIRE', KEYS[1], 86400000 + math.ceil(openWait / 1000))
            end
            local rest = 0
            if state == 1 then rest = untilOpen - now end
            return {state, epoch, failures, rest, granted, redis.call('ZCARD', KEYS[2])}
            """;

    static final String DIGEST = RedisBucketScript.sha1(SOURCE);

    private RedisCircuitScript() {
    }

    /**
     * Runs the script.
     * @param commands the connection's commands
     * @param keys the circuit's hash and probes keys
     * @param operation {@code acquire}, {@code record} or {@code read}
     * @param nowMicros the time to use instead of the Redis server's, {@code null} for
     * the server's
     * @param settings the circuit's settings
     * @param holdMicros how long a probe's place is held without its outcome
     * @param token the probe's token ({@code ""} for none)
     * @param epoch the grant's epoch ({@code -1} for none)
     * @param outcome {@code f}, {@code s} or {@code n}
     * @param instanceId who runs it
     * @return the answer, when it comes
     */
    static CompletableFuture<Reply> run(RedisScriptingAsyncCommands<String, String> commands, String[] keys,
            String operation, @Nullable Long nowMicros, CircuitSettings settings, long holdMicros, String token,
            long epoch, String outcome, String instanceId) {
        String[] args = { operation, (nowMicros != null) ? Long.toString(nowMicros) : "",
                Integer.toString(settings.failureThreshold()), Long.toString(micros(settings)),
                Long.toString(holdMicros), Integer.toString(settings.halfOpenProbes()), token, Long.toString(epoch),
                outcome, instanceId };
        return RedisBucketScript.eval(commands, DIGEST, SOURCE, keys, args).thenApply(Reply::of);
    }

    private static long micros(CircuitSettings settings) {
        return settings.openWait().isNegative() ? 0 : settings.openWait().toNanos() / 1000;
    }

    /**
     * The script's answer.
     *
     * @param state the state now
     * @param epoch its changes of state so far
     * @param failures consecutive failures while closed
     * @param restMicros the rest of the open wait, {@code 0} when not open
     * @param granted whether an acquisition was granted
     * @param probes the probes out
     */
    record Reply(CircuitState state, long epoch, int failures, long restMicros, boolean granted, int probes) {

        static Reply of(List<Object> reply) {
            if (reply.size() != 6) {
                throw new IllegalStateException("Unexpected answer of the circuit script: " + reply);
            }
            CircuitState state = switch (((Long) reply.get(0)).intValue()) {
                case 1 -> CircuitState.OPEN;
                case 2 -> CircuitState.HALF_OPEN;
                default -> CircuitState.CLOSED;
            };
            return new Reply(state, (Long) reply.get(1), ((Long) reply.get(2)).intValue(), (Long) reply.get(3),
                    (Long) reply.get(4) == 1, ((Long) reply.get(5)).intValue());
        }

    }

}

package io.github.llmthrottle.store.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.llmthrottle.quota.QuotaStore.Counter;
import io.github.llmthrottle.quota.QuotaWindow;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import org.jspecify.annotations.Nullable;

/**
 * The Lua script of the {@link RedisQuotaStore}: it reads, checks and adds to the
 * counters of one call atomically, in one round trip, on the Redis server's time.
 *
 * <p>
 * A counter's key names its window ({@code ...:day:2026-11-30},
 * {@code ...:month:2026-11}; {@link io.github.llmthrottle.quota.TokenQuotas#key}), which
 * the caller computed from its own clock. The script does not trust it: it sends the key
 * without the window's id, and the script appends the id of the window the server's
 * {@code TIME} falls in (days and months in UTC, as {@link QuotaWindow} counts them), and
 * expires the counter a day after that window's end. So an instance whose clock is off by
 * minutes, or by a day at midnight, counts in the same window as every other, and no
 * counter outlives its window by its clock. (A script may read {@code TIME} before
 * writing since Redis 5, which replicates a script's effects rather than the script.) The
 * counters written are answered with the window they went to, so that a correction goes
 * to the very counters of its reservation ({@link #resolved}), whatever window the server
 * is in by then.
 *
 * <p>
 * In a Redis Cluster every key a script touches must be in one slot: the store's keys all
 * share the hash tag <code>{quota}</code>. The key with the window's id is in the slot of
 * the key the script is given, having the same hash tag.
 *
 * <p>
 * Arguments: the operation ({@code try}, {@code add} or {@code get}), the time to use
 * instead of the server's (epoch millis, empty for the server's: only tests that move a
 * fake clock give one), how long a counter outlives its window (millis), the tokens, then
 * for each key the window ({@code day}, {@code month}, or the epoch millis its window
 * ends for a key that names its window already), then for {@code try} each counter's
 * limit. The answer: the index (from 1) of the counter that would go over ({@code 0} when
 * added), the time it ran at (epoch millis), what each counter holds, the id each was
 * counted under ({@code :2026-11-30}, empty for a key that named it) and when each one's
 * window ends (epoch millis).
 */
final class RedisQuotaScript {

    static final String SOURCE = """
            local op = ARGV[1]
            local now = tonumber(ARGV[2])
            if now == nil then
              local time = redis.call('TIME')
              now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
            end
            local keep = tonumber(ARGV[3])
            local n = #KEYS
            local function daysFromCivil(y, m, d)
              if m <= 2 then y = y - 1 end
              local era = math.floor(y / 400)
              local yoe = y - era * 400
              local doy = math.floor((153 * ((m + 9) % 12) + 2) / 5) + d - 1
              local doe = yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy
              return era * 146097 + doe - 719468
            end
            local day = math.floor(now / 86400000)
            local z = day + 719468
            local era = math.floor(z / 146097)
            local doe = z - era * 146097
            local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
            local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
            local mp = math.floor((5 * doy + 2) / 153)
            local d = doy - math.floor((153 * mp + 2) / 5) + 1
            local m = mp + 3
            if m > 12 then m = m - 12 end
            local y = yoe + era * 400
            if m <= 2 then y = y + 1 end
            local nextMonth
            if m == 12 then nextMonth = daysFromCivil(y + 1, 1, 1) else nextMonth = daysFromCivil(y, m + 1, 1) end
            local windows = {
              day = {string.format(':%04d-%02d-%02d', y, m, d), (day + 1) * 86400000},
              month = {string.format(':%04d-%02d', y, m), nextMonth * 86400000}
            }
            local keys, ids, ends, used = {}, {}, {}, {}
            for i = 1, n do
              local w = windows[ARGV[4 + i]]
              if w then
                keys[i], ids[i], ends[i] = KEYS[i] .. w[1], w[1], w[2]
              else
                keys[i], ids[i], ends[i] = KEYS[i], '', tonumber(ARGV[4 + i])
              end
              used[i] = tonumber(redis.call('GET', keys[i]) or '0')
            end
            local exceeded = 0
            if op == 'try' then
              for i = 1, n do
                if used[i] + tonumber(ARGV[4]) > tonumber(ARGV[4 + n + i]) then
                  exceeded = i
                  break
                end
              end
            end
            if exceeded == 0 and op ~= 'get' then
              for i = 1, n do
                used[i] = redis.call('INCRBY', keys[i], ARGV[4])
                redis.call('PEXPIREAT', keys[i], string.format('%d', ends[i] + keep))
              end
            end
            local reply = {exceeded, now}
            for i = 1, n do
              reply[2 + i] = used[i]
              reply[2 + n + i] = ids[i]
              reply[2 + 2 * n + i] = ends[i]
            end
            return reply
            """;

    /** How long a counter outlives its window, so that the endpoint still sees it. */
    static final Duration KEEP_AFTER_WINDOW = Duration.ofDays(1);

    private RedisQuotaScript() {
    }

    /**
     * Runs the script on the counters.
     * @param commands the connection's commands
     * @param operation what to do
     * @param nowMillis the time to use instead of the server's, {@code null} for the
     * server's
     * @param keyPrefix the prefix of the store's keys
     * @param counters the counters: each in the window of the server's time, or, those
     * {@link #resolved} by an earlier answer, in the window they name
     * @param resolved whether the counters' windows are resolved already
     * @param tokens how many tokens to add (for {@code try} and {@code add})
     * @return the answer, when it comes
     */
    static CompletableFuture<Reply> run(RedisScriptingAsyncCommands<String, String> commands, Operation operation,
            @Nullable Long nowMillis, String keyPrefix, List<Counter> counters, boolean resolved, long tokens) {
        int n = counters.size();
        String[] keys = new String[n];
        String[] args = new String[4 + n + ((operation == Operation.TRY_ADD) ? n : 0)];
        args[0] = operation.argument;
        args[1] = (nowMillis != null) ? Long.toString(nowMillis) : "";
        args[2] = Long.toString(KEEP_AFTER_WINDOW.toMillis());
        args[3] = Long.toString(tokens);
        for (int i = 0; i < n; i++) {
            Counter counter = counters.get(i);
            String window = resolved ? null : window(counter.key());
            if (window != null) {
                keys[i] = redisKey(keyPrefix, counter.key().substring(0, counter.key().lastIndexOf(':')));
                args[4 + i] = window;
            }
            else {
                keys[i] = redisKey(keyPrefix, counter.key());
                args[4 + i] = Long.toString(counter.expiresAt().toEpochMilli());
            }
            if (operation == Operation.TRY_ADD) {
                args[4 + n + i] = Long.toString(counter.limit());
            }
        }
        return commands.<List<Object>>eval(SOURCE, ScriptOutputType.MULTI, keys, args)
            .toCompletableFuture()
            .thenApply((reply) -> Reply.of(reply, n));
    }

    /**
     * The Redis key of a counter.
     * @param keyPrefix the prefix of the store's keys
     * @param key the counter's key
     * @return its key in Redis, with the store's hash tag
     */
    static String redisKey(String keyPrefix, String key) {
        return keyPrefix + ":{quota}:" + key;
    }

    /**
     * The window a counter's key names, if it names one in the form of
     * {@link io.github.llmthrottle.quota.TokenQuotas#key}: {@code ...:day:2026-11-30} or
     * {@code ...:month:2026-11}.
     * @param key the counter's key
     * @return {@code day} or {@code month}, {@code null} for a key in another form
     */
    static @Nullable String window(String key) {
        int id = key.lastIndexOf(':');
        if (id <= 0) {
            return null;
        }
        int tag = key.lastIndexOf(':', id - 1) + 1;
        String window = key.substring(tag, id);
        int length = key.length() - id - 1;
        if (window.equals(QuotaWindow.DAY.tag()) && length == 10) {
            return window;
        }
        return (window.equals(QuotaWindow.MONTH.tag()) && length == 7) ? window : null;
    }

    /**
     * The key of the same counter in the window {@code serverNow} falls in, if
     * {@code key} names the window {@code localNow} falls in: how a caller whose clock is
     * off asks for the counter of the window in force.
     * @param key a counter's key
     * @param localNow the caller's time
     * @param serverNow the server's time, as well as it is known
     * @return the key in the server's window, or {@code key} itself
     */
    static String inServerWindow(String key, Instant localNow, Instant serverNow) {
        String window = window(key);
        if (window == null) {
            return key;
        }
        QuotaWindow kind = window.equals(QuotaWindow.DAY.tag()) ? QuotaWindow.DAY : QuotaWindow.MONTH;
        int id = key.lastIndexOf(':') + 1;
        if (!key.substring(id).equals(kind.periodOf(localNow).id())) {
            return key;
        }
        return key.substring(0, id) + kind.periodOf(serverNow).id();
    }

    /** What the script does to the counters. */
    enum Operation {

        /** Adds to every counter unless one would go over its limit. */
        TRY_ADD("try"),

        /** Adds to every counter whatever their limits. */
        ADD("add"),

        /** Reads the counters. */
        GET("get");

        private final String argument;

        Operation(String argument) {
            this.argument = argument;
        }

    }

    /**
     * The script's answer.
     *
     * @param exceeded the index of the counter that would have gone over its limit,
     * {@code -1} when added
     * @param serverMillis the time the script ran at, epoch millis
     * @param used what each counter holds
     * @param ids the window id each counter was counted under ({@code :2026-11-30}, empty
     * for a counter whose key named its window)
     * @param ends when the window of each ends, epoch millis
     */
    record Reply(int exceeded, long serverMillis, long[] used, String[] ids, long[] ends) {

        static Reply of(List<Object> reply, int n) {
            if (reply.size() != 2 + 3 * n) {
                throw new IllegalStateException("Unexpected answer of the quota script: " + reply);
            }
            long[] used = new long[n];
            String[] ids = new String[n];
            long[] ends = new long[n];
            for (int i = 0; i < n; i++) {
                used[i] = number(reply.get(2 + i));
                Object id = reply.get(2 + n + i);
                ids[i] = (id != null) ? id.toString() : "";
                ends[i] = number(reply.get(2 + 2 * n + i));
            }
            return new Reply((int) number(reply.get(0)) - 1, number(reply.get(1)), used, ids, ends);
        }

        /**
         * The counters as they were counted: each key naming the window the server put it
         * in, each expiring with that window.
         * @param counters the counters the script was run on
         * @return the same counters, resolved
         */
        List<Counter> resolved(List<Counter> counters) {
            List<Counter> resolved = new ArrayList<>(counters.size());
            for (int i = 0; i < counters.size(); i++) {
                Counter counter = counters.get(i);
                String key = counter.key();
                if (!this.ids[i].isEmpty()) {
                    key = key.substring(0, key.lastIndexOf(':')) + this.ids[i];
                }
                resolved.add(new Counter(key, counter.limit(), Instant.ofEpochMilli(this.ends[i])));
            }
            return resolved;
        }

        private static long number(@Nullable Object value) {
            return (value instanceof Number number) ? number.longValue() : 0;
        }

    }

}

package io.github.llmthrottle.store.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.github.llmthrottle.limit.BurstCapacity;
import io.github.llmthrottle.store.BucketKeys;
import io.github.llmthrottle.store.TokenBucket;
import io.github.llmthrottle.store.WaitingDemand;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import org.jspecify.annotations.Nullable;

/**
 * The one Lua script that {@link RedisBucketStore} runs: it refills every bucket of one
 * admission (its model's and its tenant's), then takes all of them or none, or adjusts or
 * caps them, atomically in one round trip, and answers with what each bucket holds.
 *
 * <p>
 * Why a script of our own rather than Bucket4j's Redis proxies: a Bucket4j
 * {@code ProxyManager} works on one bucket (one key) per command, and its Lettuce
 * integration is compare-and-swap (a {@code GET}, then an {@code EVAL} that swaps if
 * unchanged: two round trips per operation, more under contention), so the buckets of one
 * admission could neither be taken atomically nor in one round trip. The script keeps
 * Bucket4j's model of the local store: capacity one minute's worth of the limit, greedy
 * (continuous) refill, a newer limit replacing an older one with the tokens kept, and the
 * cap at the provider's burst.
 *
 * <p>
 * Each bucket is a hash under its own key: {@code t} tokens (may be negative after an
 * overdraft), {@code ts} the time of {@code t} (microseconds of the server's clock),
 * {@code c} the capacity per minute and {@code v} its version (a newer version from any
 * instance replaces the capacity, keeping the tokens within it), and {@code b} the burst
 * the provider can take, learned from its headers ({@link BurstCapacity}; {@code 0} for
 * none). A bucket holds at most its burst when one below its capacity is known, refilling
 * at the capacity per minute, as a local bucket capped by
 * {@link TokenBucket#limitBurst(long)} does. Every instance sends the burst it learned
 * with each command ({@code 0} if none), and the bucket keeps the largest: each is a
 * lower bound of the same provider's bucket, so the largest is still one, and an instance
 * that learned nothing yet (starting, or sending no calls) is capped all the same. A
 * newer capacity version forgets the stored burst (the limits were configured anew),
 * which the next commands of the instances that still know theirs send again; a burst no
 * instance knows any more stays until the key expires (it only holds the bucket lower).
 * An absent bucket is created full; every bucket written expires 10 s after it would be
 * full again. Time is the Redis server's ({@code TIME}, which a script may read before
 * writing since Redis 5 replicates a script's effects rather than the script), not the
 * callers': an instance whose clock is off by minutes would otherwise freeze the refill
 * for every other instance (its stamp ahead of theirs) or fill the buckets at once (its
 * time far after the stamp). A time earlier than the bucket's (the server's clock set
 * back) is taken as no time passed. Arguments: the operation, the time to use instead of
 * the server's (microseconds, empty for the server's: only tests that move a fake clock
 * give one), how many of the keys are the model's, whether the last key is the model's
 * pause, the pause's wait, spacing and author (for {@code pause}), then the capacity,
 * version, burst and amount of each bucket key.
 *
 * <p>
 * The pause after a 429 is shared the same way: a hash under the model's pause key (in
 * its buckets' slot) with {@code until} (server microseconds), {@code next} (when the
 * next call released after the pause may go), {@code spacing}, {@code by} and {@code at}
 * (who paused it, when). While it holds, a take of the model takes nothing and waits for
 * it; after it, takes across the fleet go one per spacing (each moves {@code next}),
 * until a whole spacing passes without one (the pile-up has drained) and the key is
 * deleted.
 * <p>
 * Priority holds across the fleet through the model's demand hash (in its buckets' slot),
 * which a take with a priority ({@code ARGV[5]}: 1 {@code REALTIME}, 2 {@code NORMAL}, 3
 * {@code BATCH}; 0 for none) passes as the key before the pause key, with its instance's
 * id ({@code ARGV[7]}) and, after the buckets' arguments, what waits on that instance as
 * {@code REALTIME} and as {@code NORMAL} for each model bucket. One field per instance,
 * priority and bucket holds the time of its report, what waits, and what the instance
 * took lately at that priority (decaying with a time constant of 1 s); a field expires 3
 * s after its report. The take needs of each model bucket its amount plus the reserve:
 * what the other instances' fields of higher priorities hold (capped at the capacity less
 * the amount, so that a full bucket always lets a call go); then it writes its own fields
 * (what waits, plus its amount if not taken; its amount added to what it took lately if
 * taken).
 * <ul>
 * <li>{@code take}: takes the amount of every bucket if each holds it, otherwise nothing,
 * and answers how long the model's and the tenant's buckets need to hold it
 * (microseconds, {@code -1} for an amount above the burst or capacity);</li>
 * <li>{@code adjust}: takes the amount of every bucket whatever it holds (a negative
 * amount gives back, never above the burst or capacity);</li>
 * <li>{@code cap}: lowers every bucket to at most the amount;</li>
 * <li>{@code pause}: pauses the model (no bucket keys), unless a later pause holds.</li>
 * </ul>
 * The answer: {@code 1} if taken (always for {@code adjust}, {@code cap} and
 * {@code pause}), the model's and the tenant's waits, how long the pause holds, then what
 * each bucket holds, rounded down, then the burst each is held at ({@code 0} for none).
 *
 * <p>
 * In a Redis Cluster all keys of one script must be in one slot: the bucket keys of one
 * model start with a hash tag of its client and model ({@link BucketKeys}).
 */
final class RedisBucketScript {

    /** The script's source. */
    static final String SOURCE = """
            local op = ARGV[1]
            local now = tonumber(ARGV[2])
            if now == nil then
              local time = redis.call('TIME')
              now = tonumber(time[1]) * 1000000 + tonumber(time[2])
            end
            local nowText = string.format('%.17g', now)
            local models = tonumber(ARGV[3])
            local MINUTE = 60000000
            local n = #KEYS
            local pauseKey = nil
            if ARGV[4] == '1' then
              pauseKey = KEYS[n]
              n = n - 1
            end
            local demandKey, priority, reserve, own = nil, 0, {}, {}
            if op == 'take' and tonumber(ARGV[5]) > 0 then
              demandKey, priority = KEYS[n], tonumber(ARGV[5])
              n = n - 1
            end
            if op == 'pause' then
              local s = redis.call('HMGET', pauseKey, 'until')
              local untilNow = tonumber(s[1])
              local untilNew = now + tonumber(ARGV[5])
              if untilNow == nil or untilNew > untilNow then
                redis.call('HSET', pauseKey, 'until', string.format('%.17g', untilNew), 'next', string.format('%.17g', untilNew),
                  'spacing', ARGV[6], 'by', ARGV[7], 'at', nowText)
                untilNow = untilNew
              end
              redis.call('PEXPIRE', pauseKey, math.ceil((untilNow - now) / 1000) + 60000)
              return {1, 0, 0, untilNow - now}
            end
            local pauseWait, slotWait, spacing = 0, 0, nil
            if pauseKey ~= nil then
              local s = redis.call('HMGET', pauseKey, 'until', 'next', 'spacing')
              local pu, pn, ps = tonumber(s[1]), tonumber(s[2]), tonumber(s[3])
              if pu ~= nil and pn ~= nil and ps ~= nil then
                if now < pu then
                  pauseWait = pu - now
                elseif now < pn then
                  slotWait = pn - now
                elseif now > pn + 2 * ps then
                  redis.call('DEL', pauseKey)
                else
                  spacing = ps
                end
              end
            end
            local t, c, v, b, k, ts, a = {}, {}, {}, {}, {}, {}, {}
            for i = 1, n do
              local j = 8 + (i - 1) * 4
              local capacity, version, burst = tonumber(ARGV[j]), tonumber(ARGV[j + 1]), tonumber(ARGV[j + 2])
              a[i] = tonumber(ARGV[j + 3])
              local s = redis.call('HMGET', KEYS[i], 't', 'ts', 'c', 'v', 'b')
              local tokens, stamp, sc, sv, sb = tonumber(s[1]), tonumber(s[2]), tonumber(s[3]), tonumber(s[4]), tonumber(s[5])
              ts[i] = s[2]
              if tokens == nil or stamp == nil or sc == nil or sv == nil then
                tokens, stamp, sc, sv, sb, ts[i] = nil, now, capacity, version, 0, nowText
              elseif version > sv then
                sc, sv, sb = capacity, version, 0
              end
              if sb == nil then sb = 0 end
              if burst > sb and burst < sc then sb = burst end
              local cap = sc
              if sb > 0 and sb < sc then cap = sb end
              if tokens == nil or tokens > cap then tokens = cap end
              if now > stamp then
                if tokens < cap then tokens = math.min(cap, tokens + (now - stamp) * sc / MINUTE) end
                ts[i] = nowText
              end
              t[i], c[i], v[i], b[i], k[i] = tokens, sc, sv, sb, cap
            end
            local HOLD, WINDOW, who = 3000000, 1000000, ARGV[7]
            local function demandAt(value)
              local stamp, w, r = string.match(value, '^(%S+) (%S+) (%S+)$')
              stamp, w, r = tonumber(stamp), tonumber(w), tonumber(r)
              if stamp == nil or w == nil or r == nil or now >= stamp + HOLD then return nil end
              return w, r * math.exp(-math.max(0, now - stamp) / WINDOW)
            end
            if demandKey ~= nil then
              for i = 1, models do reserve[i] = 0 end
              local d = redis.call('HGETALL', demandKey)
              for j = 1, #d, 2 do
                local q, key, by = string.match(d[j], '^(%d)|(.*)|([^|]*)$')
                local w, r = demandAt(d[j + 1])
                if w == nil or q == nil then
                  redis.call('HDEL', demandKey, d[j])
                elseif by == who then
                  own[d[j]] = r
                elseif tonumber(q) < priority then
                  for i = 1, models do
                    if KEYS[i] == key then reserve[i] = reserve[i] + w + r end
                  end
                end
              end
            end
            local taken, modelWait, tenantWait = 1, 0, 0
            if op == 'take' then
              for i = 1, n do
                local need = a[i]
                if demandKey ~= nil and i <= models and a[i] > 0 then
                  need = a[i] + math.max(0, math.min(reserve[i], k[i] - a[i]))
                end
                if need > t[i] then
                  taken = 0
                  local wait = -1
                  if a[i] <= k[i] then wait = math.ceil((need - t[i]) * MINUTE / c[i]) end
                  if i <= models then
                    if modelWait >= 0 and (wait < 0 or wait > modelWait) then modelWait = wait end
                  elseif tenantWait >= 0 and (wait < 0 or wait > tenantWait) then
                    tenantWait = wait
                  end
                end
              end
              local held = math.max(pauseWait, slotWait)
              if held > 0 then
                taken = 0
                if modelWait >= 0 and held > modelWait then modelWait = held end
              end
              if taken == 1 then
                for i = 1, n do t[i] = t[i] - a[i] end
                if spacing ~= nil then
                  redis.call('HSET', pauseKey, 'next', string.format('%.17g', now + spacing))
                end
              end
            elseif op == 'adjust' then
              for i = 1, n do t[i] = math.min(k[i], t[i] - a[i]) end
            elseif op == 'cap' then
              for i = 1, n do
                if t[i] > a[i] then t[i] = a[i] end
              end
            end
            if demandKey ~= nil then
              local base = 8 + 4 * n
              for q = 1, 2 do
                for i = 1, models do
                  local field = q .. '|' .. KEYS[i] .. '|' .. who
                  local w, r = tonumber(ARGV[base + 2 * (i - 1) + q - 1]), own[field] or 0
                  if q == priority and taken == 1 then r = r + a[i] elseif q == priority then w = w + a[i] end
                  if w > 0 or r >= 0.001 then
                    redis.call('HSET', demandKey, field, nowText .. ' ' .. w .. ' ' .. string.format('%.6g', r))
                  elseif own[field] ~= nil then
                    redis.call('HDEL', demandKey, field)
                  end
                end
              end
              redis.call('PEXPIRE', demandKey, HOLD / 1000 + 1000)
            end
            local reply = {taken, modelWait, tenantWait, pauseWait}
            for i = 1, n do
              local ttl = 10000
              if t[i] < k[i] then ttl = ttl + math.ceil((k[i] - t[i]) * 60000 / c[i]) end
              redis.call('HSET', KEYS[i], 't', string.format('%.17g', t[i]), 'ts', ts[i],
                'c', string.format('%.17g', c[i]), 'v', string.format('%.17g', v[i]), 'b', string.format('%.17g', b[i]))
              redis.call('PEXPIRE', KEYS[i], ttl)
              reply[4 + i] = math.floor(t[i])
              if k[i] < c[i] then reply[4 + n + i] = math.floor(k[i]) else reply[4 + n + i] = 0 end
            end
            return reply
            """;

    /** The SHA-1 digest Redis knows the script by. */
    static final String DIGEST = sha1(SOURCE);

    private RedisBucketScript() {
    }

    /**
     * Runs the script on the buckets of the given handles, with the limit, its version
     * and the learned burst each handle holds now: {@code EVALSHA}, and {@code EVAL} in
     * the rare case that the server does not know it (restarted, or its scripts flushed).
     * @param commands the connection's commands
     * @param operation what to do
     * @param nowMicros the time to use instead of the Redis server's, microseconds since
     * the epoch, {@code null} for the server's
     * @param modelBuckets how many of the buckets are the model's (for the waits of a
     * take)
     * @param buckets the buckets
     * @param amounts the amount of each
     * @param pauseKey the model's pause key, in its buckets' slot, {@code null} for none
     * @param priorities for a take that keeps the reserve of higher priorities and
     * reports this instance's demand: its priority and what waits here; {@code null} for
     * none
     * @return the answer, when it comes
     */
    static CompletableFuture<BucketReply> run(RedisScriptingAsyncCommands<String, String> commands, Operation operation,
            @Nullable Long nowMicros, int modelBuckets, RedisBucket[] buckets, long[] amounts,
            @Nullable String pauseKey, @Nullable Priorities priorities) {
        int reported = (priorities != null) ? 2 * modelBuckets : 0;
        String[] keys = new String[buckets.length + ((pauseKey != null) ? 1 : 0) + ((priorities != null) ? 1 : 0)];
        String[] args = new String[7 + 4 * buckets.length + reported];
        fill(args, operation, nowMicros, modelBuckets, pauseKey);
        for (int i = 0; i < buckets.length; i++) {
            RedisBucket.Limit limit = buckets[i].limit();
            keys[i] = buckets[i].redisKey;
            args[7 + 4 * i] = Long.toString(limit.perMinute());
            args[8 + 4 * i] = Long.toString(limit.version());
            args[9 + 4 * i] = Long.toString(buckets[i].burst());
            args[10 + 4 * i] = Long.toString(amounts[i]);
        }
        if (priorities != null) {
            keys[buckets.length] = priorities.demandKey();
            args[4] = Integer.toString(priorities.waiting().priority().ordinal() + 1);
            args[6] = priorities.instance();
            for (int i = 0; i < modelBuckets; i++) {
                args[7 + 4 * buckets.length + 2 * i] = Long.toString(priorities.waiting().realtime()[i]);
                args[8 + 4 * buckets.length + 2 * i] = Long.toString(priorities.waiting().normal()[i]);
            }
        }
        if (pauseKey != null) {
            keys[keys.length - 1] = pauseKey;
        }
        return eval(commands, keys, args).thenApply((reply) -> BucketReply.of(reply, buckets.length));
    }

    /**
     * Pauses a model in every instance: no take of its buckets goes until the server's
     * time now plus {@code waitMicros} (a later pause in force stays), then one take per
     * {@code spacingMicros} across the fleet until a whole spacing passes without one.
     * @param commands the connection's commands
     * @param nowMicros the time to use instead of the Redis server's, {@code null} for
     * the server's
     * @param pauseKey the model's pause key, in its buckets' slot
     * @param waitMicros how long the provider asked to wait
     * @param spacingMicros the time between two calls released after the pause
     * @param pausedBy who paused it (an instance id)
     * @return the answer, when it comes: how long the pause lasts from now
     */
    static CompletableFuture<BucketReply> pause(RedisScriptingAsyncCommands<String, String> commands,
            @Nullable Long nowMicros, String pauseKey, long waitMicros, long spacingMicros, String pausedBy) {
        String[] args = new String[7];
        fill(args, Operation.PAUSE, nowMicros, 0, pauseKey);
        args[4] = Long.toString(waitMicros);
        args[5] = Long.toString(spacingMicros);
        args[6] = pausedBy;
        return eval(commands, new String[] { pauseKey }, args).thenApply((reply) -> BucketReply.of(reply, 0));
    }

    private static void fill(String[] args, Operation operation, @Nullable Long nowMicros, int modelBuckets,
            @Nullable String pauseKey) {
        args[0] = operation.argument;
        args[1] = (nowMicros != null) ? Long.toString(nowMicros) : "";
        args[2] = Integer.toString(modelBuckets);
        args[3] = (pauseKey != null) ? "1" : "0";
        args[4] = "0";
        args[5] = "0";
        args[6] = "";
    }

    private static CompletableFuture<List<Object>> eval(RedisScriptingAsyncCommands<String, String> commands,
            String[] keys, String[] args) {
        return eval(commands, DIGEST, SOURCE, keys, args);
    }

    /**
     * Runs a script by its digest ({@code EVALSHA}), and by its source ({@code EVAL}) in
     * the rare case that the server does not know it.
     * @param commands the connection's commands
     * @param digest the script's SHA-1 digest ({@link #sha1(String)})
     * @param source the script
     * @param keys its keys
     * @param args its arguments
     * @return its answer, a list, when it comes
     */
    static CompletableFuture<List<Object>> eval(RedisScriptingAsyncCommands<String, String> commands, String digest,
            String source, String[] keys, String[] args) {
        CompletableFuture<List<Object>> answer = commands
            .<List<Object>>evalsha(digest, ScriptOutputType.MULTI, keys, args)
            .toCompletableFuture();
        return answer.exceptionallyCompose((ex) -> {
            Throwable cause = (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
            if (cause instanceof RedisNoScriptException) {
                return commands.<List<Object>>eval(source, ScriptOutputType.MULTI, keys, args).toCompletableFuture();
            }
            return CompletableFuture.failedFuture(cause);
        });
    }

    static String sha1(String source) {
        try {
            return HexFormat.of()
                .formatHex(MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8)));
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("No SHA-1 in this JVM", ex);
        }
    }

    /**
     * What a take tells the script of priorities: the model's demand hash, this
     * instance's id in it, the take's priority and the demand waiting on this instance.
     *
     * @param demandKey the model's demand hash, in its buckets' slot
     * @param instance this instance's id, unique across the fleet
     * @param waiting the take's priority and the demand of higher priorities waiting
     */
    record Priorities(String demandKey, String instance, WaitingDemand waiting) {
    }

    /** What the script does to the buckets. */
    enum Operation {

        /** All the amounts, or nothing. */
        TAKE("take"),

        /** The amounts whatever the buckets hold (negative gives back). */
        ADJUST("adjust"),

        /** The buckets lowered to at most the amounts. */
        CAP("cap"),

        /** The model paused across the fleet. */
        PAUSE("pause");

        private final String argument;

        Operation(String argument) {
            this.argument = argument;
        }

    }

}

package io.github.llmthrottle.benchmarks.load;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.github.llmthrottle.benchmarks.MessagesBodies;
import io.github.llmthrottle.test.ModelLimits;
import tools.jackson.databind.json.JsonMapper;

/**
 * An agent workload: every call sends one of a few long system prompts (the agent's
 * instructions and tools, the same for many calls) and a fresh user turn, and gets a long
 * answer. With {@code cached}, the system prompt is marked for Anthropic's prompt caching
 * ({@code cache_control}), so the provider counts only the turn (and each prefix's first
 * write) against its input tokens per minute; without, it counts the whole prompt.
 * <p>
 * The provider's limits, its buckets and its answer time are stated in simulated time and
 * run {@code compression} times faster: every per-minute limit is multiplied by it and
 * every duration divided by it, so that ten simulated minutes take one minute. Each model
 * is offered {@code overload} times what its binding limit admits for this workload.
 *
 * @param models the models called, each offered its own load at once
 * @param prefixTokens tokens of each system prompt
 * @param prefixes how many different system prompts the calls take in turn
 * @param turnTokens tokens of each call's user turn
 * @param maxTokens {@code max_tokens} of every call
 * @param outputTokens output tokens of every answer
 * @param answer the provider's time to answer a call, simulated
 * @param bucketWindow how much of each per-minute limit the provider's buckets hold,
 * simulated
 * @param overload the offered load as a multiple of the binding limit
 * @param duration how long the load is offered, in real time
 * @param compression how many times faster than real time the provider runs
 * @param cached whether the system prompts carry {@code cache_control}
 * @param deadline how long after the load ends to wait for the last calls, in real time
 */
public record AgentScenario(List<AgentModel> models, int prefixTokens, int prefixes, int turnTokens, int maxTokens,
        int outputTokens, Duration answer, Duration bucketWindow, double overload, Duration duration, int compression,
        boolean cached, Duration deadline) {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /**
     * Copies the models.
     * @param models the models
     * @param prefixTokens tokens of each system prompt
     * @param prefixes number of system prompts
     * @param turnTokens tokens of each user turn
     * @param maxTokens {@code max_tokens}
     * @param outputTokens output tokens of every answer
     * @param answer simulated answer time
     * @param bucketWindow simulated bucket window
     * @param overload offered load over the binding limit
     * @param duration real duration of the offered load
     * @param compression time compression
     * @param cached whether prompts are marked for caching
     * @param deadline real time to wait for the last calls
     */
    public AgentScenario {
        models = List.copyOf(models);
    }

    /**
     * One model of the workload and its limits, per simulated minute.
     *
     * @param name the model name
     * @param requestsPerMinute RPM
     * @param inputTokensPerMinute ITPM
     * @param outputTokensPerMinute OTPM
     */
    public record AgentModel(String name, long requestsPerMinute, long inputTokensPerMinute,
            long outputTokensPerMinute) {
    }

    /**
     * The workload of the measurement: 30,000-token prefixes (four of them) and
     * 1,000-token turns answered with 1,000 tokens in 20 s, provider buckets of 20 s,
     * offered at 1.3 times the binding limit for 20 s of real time at ten times real
     * speed, against an Opus-like model (RPM 60, ITPM 400,000, OTPM 80,000 a simulated
     * minute: one cached call a second, 10 a second in real time) and a Sonnet-like one
     * (RPM 120, ITPM 1,000,000, OTPM 160,000: 20 a second in real time). Without caching
     * the input tokens bind: 0.22 and 0.54 calls a simulated second. The input-token
     * limits are where a limiter that reserves the whole prompt of a cached call, as if
     * the provider counted it, admits well under the binding limit.
     * @param cached whether the prefixes carry {@code cache_control}
     * @return the scenario
     */
    public static AgentScenario of(boolean cached) {
        return new AgentScenario(
                List.of(new AgentModel("claude-opus-4-7", 60, 400_000, 80_000),
                        new AgentModel("claude-sonnet-4-5", 120, 1_000_000, 160_000)),
                30_000, 4, 1_000, 1_024, 1_000, Duration.ofSeconds(20), Duration.ofSeconds(20), 1.3,
                Duration.ofSeconds(20), 10, cached, Duration.ofSeconds(60));
    }

    /**
     * The limits the simulator enforces and llm-throttle is configured with: the
     * simulated ones, compressed.
     * @param model the model
     * @return real per-minute limits
     */
    public ModelLimits realLimits(AgentModel model) {
        return ModelLimits.of(model.requestsPerMinute() * this.compression,
                model.inputTokensPerMinute() * this.compression, model.outputTokensPerMinute() * this.compression);
    }

    /**
     * The input tokens per call the provider counts against its input tokens per minute
     * once the prefixes are written: the turn with caching, the whole prompt without.
     * @return tokens
     */
    public int countedInputTokens() {
        return this.cached ? this.turnTokens : this.prefixTokens + this.turnTokens;
    }

    /**
     * The calls a real second the provider admits for this workload, whichever limit
     * binds.
     * @param model the model
     * @return calls per real second
     */
    public double bindingPerSecond(AgentModel model) {
        double byRequests = model.requestsPerMinute() / 60.0;
        double byInput = model.inputTokensPerMinute() / 60.0 / countedInputTokens();
        double byOutput = model.outputTokensPerMinute() / 60.0 / this.outputTokens;
        return this.compression * Math.min(byRequests, Math.min(byInput, byOutput));
    }

    /**
     * Which limit binds.
     * @param model the model
     * @return {@code RPM}, {@code ITPM} or {@code OTPM}
     */
    public String bindingLimit(AgentModel model) {
        double byRequests = model.requestsPerMinute() / 60.0;
        double byInput = model.inputTokensPerMinute() / 60.0 / countedInputTokens();
        double byOutput = model.outputTokensPerMinute() / 60.0 / this.outputTokens;
        if (byRequests <= byInput && byRequests <= byOutput) {
            return "RPM";
        }
        return (byInput <= byOutput) ? "ITPM" : "OTPM";
    }

    /**
     * The calls offered a real second to a model.
     * @param model the model
     * @return calls per real second
     */
    public double offeredPerSecond(AgentModel model) {
        return this.overload * bindingPerSecond(model);
    }

    /**
     * The calls offered to a model over the run.
     * @param model the model
     * @return calls
     */
    public int calls(AgentModel model) {
        return (int) Math.round(offeredPerSecond(model) * this.duration.toNanos() / 1e9);
    }

    /**
     * A duration of simulated time in real time.
     * @param simulated the simulated duration
     * @return the real duration
     */
    public Duration real(Duration simulated) {
        return simulated.dividedBy(this.compression);
    }

    /**
     * The body of a model's {@code index}th call: the system prompt
     * {@code index % prefixes} (with {@code cache_control} when cached) and a user turn
     * of its own.
     * @param model the model
     * @param index the call
     * @return the JSON body
     */
    public String body(AgentModel model, int index) {
        Map<String, Object> system = new LinkedHashMap<>();
        system.put("type", "text");
        system.put("text", MessagesBodies.prose(4 * this.prefixTokens, 1000 + index % this.prefixes));
        if (this.cached) {
            system.put("cache_control", Map.of("type", "ephemeral"));
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", model.name());
        body.put("max_tokens", this.maxTokens);
        body.put("system", List.of(system));
        body.put("messages",
                List.of(Map.of("role", "user", "content", MessagesBodies.prose(4 * this.turnTokens, index))));
        return JSON.writeValueAsString(body);
    }

    /**
     * This workload with or without caching.
     * @param cached whether the prefixes carry {@code cache_control}
     * @return the new scenario
     */
    public AgentScenario withCached(boolean cached) {
        return new AgentScenario(this.models, this.prefixTokens, this.prefixes, this.turnTokens, this.maxTokens,
                this.outputTokens, this.answer, this.bucketWindow, this.overload, this.duration, this.compression,
                cached, this.deadline);
    }

    /**
     * This workload offered for another time.
     * @param duration the real duration of the offered load
     * @return the new scenario
     */
    public AgentScenario withDuration(Duration duration) {
        return new AgentScenario(this.models, this.prefixTokens, this.prefixes, this.turnTokens, this.maxTokens,
                this.outputTokens, this.answer, this.bucketWindow, this.overload, duration, this.compression,
                this.cached, this.deadline);
    }

    /**
     * This workload at another offered load.
     * @param overload the offered load as a multiple of the binding limit
     * @return the new scenario
     */
    public AgentScenario withOverload(double overload) {
        return new AgentScenario(this.models, this.prefixTokens, this.prefixes, this.turnTokens, this.maxTokens,
                this.outputTokens, this.answer, this.bucketWindow, overload, this.duration, this.compression,
                this.cached, this.deadline);
    }

    /**
     * The workload in one paragraph, for the report.
     * @return the description
     */
    public String describe() {
        StringBuilder text = new StringBuilder(String.format(Locale.ROOT,
                "Agent workload, %s: %d system prompts of %,d tokens%s taken in turn, a %,d-token user turn per "
                        + "call, max_tokens %,d, %,d output tokens answered in %d s; provider buckets holding %d s "
                        + "of each limit; %dx time compression (limits x%d a real minute, buckets %.1f s, answers "
                        + "%.1f s of real time); offered %.1fx the binding limit for %d s of real time. ",
                this.cached ? "cached" : "not cached", this.prefixes, this.prefixTokens,
                this.cached ? " marked with cache_control" : " without cache_control", this.turnTokens, this.maxTokens,
                this.outputTokens, this.answer.toSeconds(), this.bucketWindow.toSeconds(), this.compression,
                this.compression, real(this.bucketWindow).toMillis() / 1000.0, real(this.answer).toMillis() / 1000.0,
                this.overload, this.duration.toSeconds()));
        for (AgentModel model : this.models) {
            text.append(String.format(Locale.ROOT,
                    "%s: RPM %,d, ITPM %,d, OTPM %,d a simulated minute; %s binds at %.1f calls a real second, "
                            + "offered %.1f (%d calls). ",
                    model.name(), model.requestsPerMinute(), model.inputTokensPerMinute(),
                    model.outputTokensPerMinute(), bindingLimit(model), bindingPerSecond(model),
                    offeredPerSecond(model), calls(model)));
        }
        return text.toString().trim();
    }

}

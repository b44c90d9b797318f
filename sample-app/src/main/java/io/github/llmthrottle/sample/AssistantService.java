package io.github.llmthrottle.sample;

import java.util.List;
import java.util.Map;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.Throttled;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestClient;

/**
 * The sample's service code, written the way a user of the starter writes it: each method
 * says which model it wants, at which priority, for which tenant, how long it may wait
 * and what to fall back to, and simply calls the throttled {@code RestClient}.
 */
@Service
public class AssistantService {

    private final RestClient anthropic;

    private final RestClient openai;

    public AssistantService(@Qualifier("anthropicRestClient") RestClient anthropic,
            @Qualifier("openaiRestClient") RestClient openai) {
        this.anthropic = anthropic;
        this.openai = openai;
    }

    /**
     * Answers a person's question now: Opus if it can take the call within 10 s, else
     * Sonnet, else a cached answer.
     * @param question the question
     * @return the answer
     */
    @Throttled(client = "anthropic", model = SimulatedProvider.OPUS, fallback = { SimulatedProvider.SONNET },
            priority = Priority.REALTIME, maxWait = "10s", fallbackMethod = "cachedAnswer")
    public Answer answer(Question question) {
        return messages(question.text(), 150);
    }

    /**
     * Summarises a document for a tenant.
     * @param document the document
     * @return the summary
     */
    @Throttled(client = "anthropic", model = SimulatedProvider.SONNET, priority = Priority.NORMAL,
            tenant = "#document.tenant", maxWait = "60s")
    public Answer summarize(Document document) {
        return messages("Summarise:\n" + document.text(), 200);
    }

    /**
     * Runs a background analysis for a tenant; it waits behind interactive work.
     * @param job the analysis job
     * @return the analysis
     */
    @Throttled(client = "anthropic", model = SimulatedProvider.SONNET, priority = Priority.BATCH,
            tenant = "#job.tenant", maxWait = "120s")
    public Answer analyze(AnalysisJob job) {
        return messages("Analyse:\n" + job.text(), 300);
    }

    /**
     * Classifies a text with the OpenAI-compatible client.
     * @param text the text
     * @return the label
     */
    @Throttled(client = "openai", priority = Priority.NORMAL, maxWait = "30s")
    public Answer classify(String text) {
        JsonNode response = this.openai.post()
            .uri("/chat/completions")
            .contentType(MediaType.APPLICATION_JSON)
            .body(Map.of("model", model(SimulatedProvider.GPT), "max_tokens", 20, "messages",
                    List.of(Map.of("role", "user", "content", "Classify: " + text))))
            .retrieve()
            .body(JsonNode.class);
        JsonNode usage = response.path("usage");
        return new Answer(response.path("choices").path(0).path("message").path("content").asString(""),
                response.path("model").asString(model(SimulatedProvider.GPT)), usage.path("prompt_tokens").asLong(),
                usage.path("completion_tokens").asLong());
    }

    /**
     * The degraded answer when no model could take a question.
     * @param question the question
     * @param cause why every model failed
     * @return a cached answer
     */
    public Answer cachedAnswer(Question question, Throwable cause) {
        return new Answer("(cached) The assistant is busy; here is the closest earlier answer.", "cache", 0, 0);
    }

    private Answer messages(String prompt, int maxTokens) {
        String model = model(SimulatedProvider.SONNET);
        JsonNode response = this.anthropic.post()
            .uri("/v1/messages")
            .contentType(MediaType.APPLICATION_JSON)
            .body(Map.of("model", model, "max_tokens", maxTokens, "messages",
                    List.of(Map.of("role", "user", "content", prompt))))
            .retrieve()
            .body(JsonNode.class);
        JsonNode usage = response.path("usage");
        return new Answer(response.path("content").path(0).path("text").asString(""),
                response.path("model").asString(model), usage.path("input_tokens").asLong(),
                usage.path("output_tokens").asLong());
    }

    private static String model(String otherwise) {
        String routed = ThrottleContext.currentModel();
        return (routed != null) ? routed : otherwise;
    }

    /**
     * A person's question.
     *
     * @param text the question
     */
    public record Question(String text) {
    }

    /**
     * A document of a tenant.
     *
     * @param tenant the tenant id
     * @param text the document
     */
    public record Document(String tenant, String text) {
    }

    /**
     * A background analysis of a tenant.
     *
     * @param tenant the tenant id
     * @param text what to analyse
     */
    public record AnalysisJob(String tenant, String text) {
    }

}

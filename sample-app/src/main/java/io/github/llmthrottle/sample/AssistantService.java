package io.github.llmthrottle.sample;

import java.util.List;
import java.util.Map;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.Throttled;
import tools.jackson.databind.JsonNode;

import org.springframework.ai.anthropic.AnthropicChatOptions;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.metadata.Usage;
import org.springframework.ai.chat.model.ChatResponse;
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

    /**
     * The instructions every summary and analysis starts with: about 1,500 tokens, above
     * the provider's minimum for a cached prefix.
     */
    private static final String HOUSE_GUIDE = ("You write for Acme's support team. Be precise, cite the "
            + "document, keep the customer's words, and never promise what the document does not say. ")
        .repeat(40);

    private final RestClient anthropic;

    private final RestClient openai;

    private final ChatClient chatClient;

    public AssistantService(@Qualifier("anthropicRestClient") RestClient anthropic,
            @Qualifier("openaiRestClient") RestClient openai, ChatClient.Builder chatClient) {
        this.anthropic = anthropic;
        this.openai = openai;
        this.chatClient = chatClient.build();
    }

    /**
     * Answers a person's question now: Opus if it can take the call within 10 s, else the
     * OpenAI-compatible provider's model (another client), else Sonnet, else a cached
     * answer. {@code ThrottleContext.current().getClient()} says which client the
     * invocation was routed to, and so which API to speak.
     * @param question the question
     * @return the answer
     */
    @Throttled(client = "anthropic", model = SimulatedProvider.OPUS,
            fallback = { "openai:" + SimulatedProvider.GPT, SimulatedProvider.SONNET }, priority = Priority.REALTIME,
            maxWait = "10s", fallbackMethod = "cachedAnswer")
    public Answer answer(Question question) {
        ThrottleContext context = ThrottleContext.current();
        if (context != null && context.getClient().equals("openai")) {
            return chatCompletion(question.text(), 150);
        }
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
        return chatCompletion("Classify: " + text, 20);
    }

    private Answer chatCompletion(String prompt, int maxTokens) {
        String model = model(SimulatedProvider.GPT);
        JsonNode response = this.openai.post()
            .uri("/chat/completions")
            .contentType(MediaType.APPLICATION_JSON)
            .body(Map.of("model", model, "max_tokens", maxTokens, "messages",
                    List.of(Map.of("role", "user", "content", prompt))))
            .retrieve()
            .body(JsonNode.class);
        JsonNode usage = response.path("usage");
        return new Answer(response.path("choices").path(0).path("message").path("content").asString(""),
                response.path("model").asString(model), usage.path("prompt_tokens").asLong(),
                usage.path("completion_tokens").asLong());
    }

    /**
     * Drafts a reply to a tenant's message through Spring AI's {@code ChatClient}
     * ({@code call()}), at normal priority.
     * @param document the tenant's message
     * @return the draft
     */
    public Answer draftReply(Document document) {
        ChatResponse response = this.chatClient.prompt("Draft a reply to:\n" + document.text())
            .options(AnthropicChatOptions.builder().model(SimulatedProvider.SONNET).maxTokens(200))
            .advisors((advisor) -> advisor.param("llm.throttle.priority", Priority.NORMAL)
                .param("llm.throttle.tenant", document.tenant()))
            .call()
            .chatResponse();
        return answer(List.of(response));
    }

    /**
     * Writes a background report for a tenant through Spring AI's {@code ChatClient},
     * streamed ({@code stream()}), at batch priority: it waits behind interactive work
     * before the stream starts.
     * @param job what to report on
     * @return the report
     */
    public Answer streamReport(AnalysisJob job) {
        List<ChatResponse> chunks = this.chatClient.prompt("Write a report on:\n" + job.text())
            .options(AnthropicChatOptions.builder().model(SimulatedProvider.SONNET).maxTokens(300))
            .advisors((advisor) -> advisor.param("llm.throttle.priority", "BATCH")
                .param("llm.throttle.tenant", job.tenant()))
            .stream()
            .chatResponse()
            .collectList()
            .block();
        return answer((chunks != null) ? chunks : List.of());
    }

    /** The text, model and usage of a Spring AI response (the chunks of a stream). */
    private static Answer answer(List<ChatResponse> responses) {
        StringBuilder text = new StringBuilder();
        String model = SimulatedProvider.SONNET;
        long input = 0;
        long output = 0;
        for (ChatResponse response : responses) {
            if (response == null) {
                continue;
            }
            if (response.getResult() != null && response.getResult().getOutput().getText() != null) {
                text.append(response.getResult().getOutput().getText());
            }
            if (response.getMetadata().getModel() != null && !response.getMetadata().getModel().isEmpty()) {
                model = response.getMetadata().getModel();
            }
            Usage usage = response.getMetadata().getUsage();
            if (usage != null) {
                // a stream's usage grows event by event: its largest figures are the
                // totals
                input = Math.max(input, (usage.getPromptTokens() != null) ? usage.getPromptTokens() : 0);
                output = Math.max(output, (usage.getCompletionTokens() != null) ? usage.getCompletionTokens() : 0);
            }
        }
        return new Answer(text.toString(), model, input, output);
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
        // the house guide, the same for every call, is marked for Anthropic's prompt
        // cache:
        // once written, reading it does not count against input tokens per minute
        JsonNode response = this.anthropic.post()
            .uri("/v1/messages")
            .contentType(MediaType.APPLICATION_JSON)
            .body(Map.of("model", model, "max_tokens", maxTokens, "system",
                    List.of(Map.of("type", "text", "text", HOUSE_GUIDE, "cache_control", Map.of("type", "ephemeral"))),
                    "messages", List.of(Map.of("role", "user", "content", prompt))))
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

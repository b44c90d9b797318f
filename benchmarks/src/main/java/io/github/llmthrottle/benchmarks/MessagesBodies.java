package io.github.llmthrottle.benchmarks;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

/**
 * Anthropic Messages request bodies of a chosen size, built the same way for every
 * benchmark: a system prompt and alternating user and assistant turns of English-like
 * prose, so that the JSON parser sees realistic strings rather than one long run of a
 * single character.
 */
public final class MessagesBodies {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static final String[] WORDS = { "the", "rate", "limit", "of", "each", "model", "is", "shared", "by",
            "every", "caller", "so", "a", "request", "waits", "for", "tokens", "before", "it", "is", "sent", "and",
            "retries", "honour", "what", "provider", "asks", "summarise", "following", "report", "in", "three",
            "bullet", "points", "with", "numbers", "where", "possible", "please" };

    private MessagesBodies() {
    }

    /**
     * A Messages body of about {@code bytes} bytes of JSON (within a few dozen bytes).
     * @param model the model
     * @param maxTokens the {@code max_tokens} field
     * @param bytes the approximate size
     * @return the body
     */
    public static byte[] ofSize(String model, int maxTokens, int bytes) {
        int prose = Math.max(0, bytes - 160);
        int turns = Math.max(1, Math.min(9, prose / 200)) | 1;
        int perTurn = prose / (turns + 1);
        List<Map<String, Object>> messages = new ArrayList<>();
        for (int i = 0; i < turns; i++) {
            messages.add(Map.of("role", (i % 2 == 0) ? "user" : "assistant", "content", prose(perTurn, i)));
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", model);
        body.put("max_tokens", maxTokens);
        body.put("system", prose(perTurn, 99));
        body.put("messages", messages);
        return JSON.writeValueAsBytes(body);
    }

    /**
     * A Messages body with one user message.
     * @param model the model
     * @param maxTokens the {@code max_tokens} field
     * @param prompt the user message
     * @return the body as a string
     */
    public static String singleTurn(String model, int maxTokens, String prompt) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", model);
        body.put("max_tokens", maxTokens);
        body.put("messages", List.of(Map.of("role", "user", "content", prompt)));
        return new String(JSON.writeValueAsBytes(body), StandardCharsets.UTF_8);
    }

    /**
     * English-like prose of exactly {@code chars} characters.
     * @param chars the length
     * @param seed varies the text
     * @return the text
     */
    public static String prose(int chars, int seed) {
        StringBuilder text = new StringBuilder(chars + 16);
        int i = seed;
        while (text.length() < chars) {
            text.append(WORDS[Math.floorMod(i * 7 + i / WORDS.length, WORDS.length)]);
            text.append(((i + 1) % 13 == 0) ? ". " : " ");
            i++;
        }
        text.setLength(chars);
        return text.toString();
    }

    /**
     * Sends a Messages body through a client whose base URL is the provider's, and reads
     * the answer.
     * @param client the client
     * @param body the request body
     */
    public static void post(RestClient client, String body) {
        client.post()
            .uri("/v1/messages")
            .contentType(MediaType.APPLICATION_JSON)
            .body(body)
            .retrieve()
            .body(String.class);
    }

}

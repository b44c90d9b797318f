package io.github.llmthrottle.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** A small HTTP client for the simulator tests. */
final class SimClient {

    static final JsonMapper JSON = JsonMapper.builder().build();

    static final HttpClient HTTP = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build();

    private SimClient() {
    }

    static HttpRequest.Builder request(LlmSimulator simulator, String path, String body, String... headers) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(simulator.baseUrl() + path))
            .timeout(Duration.ofSeconds(20))
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0) {
            builder.headers(headers);
        }
        return builder;
    }

    static HttpResponse<String> post(LlmSimulator simulator, String path, String body, String... headers) {
        try {
            return HTTP.send(request(simulator, path, body, headers).build(), HttpResponse.BodyHandlers.ofString());
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    static HttpResponse<String> anthropic(LlmSimulator simulator, String body, String... headers) {
        return post(simulator, "/v1/messages", body, headers);
    }

    static HttpResponse<String> openAi(LlmSimulator simulator, String body, String... headers) {
        return post(simulator, "/v1/chat/completions", body, headers);
    }

    static String messages(String model, int maxTokens, String text) {
        ObjectNode root = JSON.createObjectNode();
        root.put("model", model);
        root.put("max_tokens", maxTokens);
        ObjectNode message = root.putArray("messages").addObject();
        message.put("role", "user");
        message.put("content", text);
        return JSON.writeValueAsString(root);
    }

    static String streamingMessages(String model, int maxTokens, String text) {
        ObjectNode root = (ObjectNode) JSON.readTree(messages(model, maxTokens, text));
        root.put("stream", true);
        return JSON.writeValueAsString(root);
    }

    static String chat(String model, int maxTokens, String text) {
        ObjectNode root = JSON.createObjectNode();
        root.put("model", model);
        if (maxTokens > 0) {
            root.put("max_tokens", maxTokens);
        }
        ObjectNode message = root.putArray("messages").addObject();
        message.put("role", "user");
        message.put("content", text);
        return JSON.writeValueAsString(root);
    }

    static String streamingChat(String model, int maxTokens, String text, boolean includeUsage) {
        ObjectNode root = (ObjectNode) JSON.readTree(chat(model, maxTokens, text));
        root.put("stream", true);
        if (includeUsage) {
            root.putObject("stream_options").put("include_usage", true);
        }
        return JSON.writeValueAsString(root);
    }

    static JsonNode json(HttpResponse<String> response) {
        return JSON.readTree(response.body());
    }

    static String header(HttpResponse<?> response, String name) {
        return response.headers().firstValue(name).orElse(null);
    }

    /** A text of exactly {@code tokens} estimated tokens. */
    static String textOf(int tokens) {
        return "abcd".repeat(tokens);
    }

    /**
     * Splits an SSE body into (event name, data) pairs; the name is null for data-only
     * events.
     */
    static List<String[]> events(String body) {
        List<String[]> events = new ArrayList<>();
        for (String block : body.split("\n\n")) {
            if (block.isBlank()) {
                continue;
            }
            String name = null;
            String data = null;
            for (String line : block.split("\n")) {
                if (line.startsWith("event: ")) {
                    name = line.substring(7);
                }
                else if (line.startsWith("data: ")) {
                    data = line.substring(6);
                }
            }
            events.add(new String[] { name, data });
        }
        return events;
    }

}

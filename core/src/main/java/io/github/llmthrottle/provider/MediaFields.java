package io.github.llmthrottle.provider;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonParser;

/**
 * Where a request body holds images, documents or audio rather than text, and what those
 * given by URL or file id cost, for {@link RequestBodyReader}: such values are estimated
 * as the provider counts them ({@link MediaTokens}), never as the characters of their
 * data or reference.
 */
final class MediaFields {

    private MediaFields() {
    }

    /**
     * Whether the current string value is an image, a document or audio rather than text:
     * OpenAI's {@code image_url}, {@code file_data} and {@code input_audio.data}, a data
     * URL, or an element of Ollama's {@code images} (base64 images).
     * @param field the name of the value's field, or {@code null} in an array
     * @param parent the name of the field of the object holding it (of the array, for an
     * element), or {@code null}
     */
    static boolean isMedia(JsonParser parser, @Nullable String field, @Nullable String parent) {
        if (field == null) {
            return "images".equals(parent);
        }
        return switch (field) {
            case "data" -> "input_audio".equals(parent);
            case "url" -> "image_url".equals(parent) || startsWith(parser, "data:");
            case "image_url", "file_data" -> true;
            default -> false;
        };
    }

    /** Whether the current string value is a link rather than inline data. */
    static boolean isLink(JsonParser parser) {
        return startsWith(parser, "http:") || startsWith(parser, "https:");
    }

    private static boolean startsWith(JsonParser parser, String prefix) {
        if (parser.getStringLength() < prefix.length()) {
            return false;
        }
        char[] chars = parser.getStringCharacters();
        int offset = parser.getStringOffset();
        for (int i = 0; i < prefix.length(); i++) {
            if (Character.toLowerCase(chars[offset + i]) != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The tokens of the images or documents a block (a JSON object) gives by URL or file
     * id: an image at the most an image costs, anything else at {@code documentTokens}.
     * @param type the block's {@code type}, or {@code null} when it has none
     * @param references how many URLs or file ids the block holds
     * @param documentTokens the tokens of a document given by URL or file id
     */
    static long referenceTokens(@Nullable String type, int references, long documentTokens) {
        if (references == 0) {
            return 0;
        }
        boolean image = type != null && type.contains("image");
        return references * (image ? MediaTokens.MAX_IMAGE_TOKENS : documentTokens);
    }

}

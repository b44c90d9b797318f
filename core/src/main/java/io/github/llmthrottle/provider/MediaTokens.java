package io.github.llmthrottle.provider;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Estimates the input tokens of an image or a document in a request the way the providers
 * count them, never as characters of text: a 1 MB base64 image is about 1,600 tokens, not
 * 330,000.
 * <ul>
 * <li>An image (PNG, JPEG, GIF, WebP, read from the first bytes of its base64 data) costs
 * about width × height / 750 tokens after it is scaled to fit 1568 pixels on its long
 * edge, at most 1,600 (Anthropic's rule; OpenAI's tiles cost less, so the estimate leans
 * high).</li>
 * <li>An image whose size cannot be read (another format, or given by URL) costs the most
 * an image can: 1,600.</li>
 * <li>A PDF costs {@value #TOKENS_PER_PAGE} tokens per page (its pages' text and images;
 * Anthropic documents 1,500 to 3,000).</li>
 * </ul>
 */
final class MediaTokens {

    /** The most an image costs, and the cost of one whose size is unknown. */
    static final long MAX_IMAGE_TOKENS = 1_600;

    static final long TOKENS_PER_PAGE = 2_000;

    private static final int LONG_EDGE = 1568;

    private static final int SNIFFED_BYTES = 64 * 1024;

    private static final byte[] PAGE = "/Type /Page".getBytes(StandardCharsets.US_ASCII);

    private static final byte[] PAGE_COMPACT = "/Type/Page".getBytes(StandardCharsets.US_ASCII);

    private MediaTokens() {
    }

    /**
     * Whether a string value is a data URL ({@code data:image/png;base64,...}).
     * @param value the value
     * @return {@code true} for a data URL
     */
    static boolean isDataUrl(String value) {
        return value.regionMatches(true, 0, "data:", 0, 5);
    }

    /**
     * The tokens of a base64 payload or a data URL.
     * @param value the base64 data, or a {@code data:} URL
     * @return the estimated tokens
     */
    static long ofBase64(String value) {
        int start = 0;
        if (isDataUrl(value)) {
            int comma = value.indexOf(',');
            if (comma < 0) {
                return MAX_IMAGE_TOKENS;
            }
            start = comma + 1;
        }
        byte[] head = decode(value, start, SNIFFED_BYTES);
        if (startsWith(head, "%PDF")) {
            return pages(decode(value, start, Integer.MAX_VALUE)) * TOKENS_PER_PAGE;
        }
        long[] size = ImageSize.of(head);
        return (size != null) ? imageTokens(size[0], size[1]) : MAX_IMAGE_TOKENS;
    }

    /**
     * The tokens of an image of the given size.
     * @param width the width in pixels
     * @param height the height in pixels
     * @return the estimated tokens, at most {@link #MAX_IMAGE_TOKENS}
     */
    static long imageTokens(long width, long height) {
        if (width <= 0 || height <= 0) {
            return MAX_IMAGE_TOKENS;
        }
        double scale = Math.min(1.0, (double) LONG_EDGE / Math.max(width, height));
        double pixels = (width * scale) * (height * scale);
        return Math.max(1, Math.min(MAX_IMAGE_TOKENS, (long) Math.ceil(pixels / 750)));
    }

    private static long pages(byte[] pdf) {
        long pages = count(pdf, PAGE) + count(pdf, PAGE_COMPACT);
        return Math.max(1, pages);
    }

    /**
     * Occurrences of {@code /Type /Page} not followed by {@code s} (which is the page
     * tree).
     */
    private static long count(byte[] data, byte[] needle) {
        long count = 0;
        outer: for (int i = 0; i <= data.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (data[i + j] != needle[j]) {
                    continue outer;
                }
            }
            int next = i + needle.length;
            if (next >= data.length || data[next] != 's') {
                count++;
            }
        }
        return count;
    }

    /**
     * Decodes at most about {@code maxBytes} of the base64 in {@code value} from
     * {@code start}.
     */
    private static byte[] decode(String value, int start, int maxBytes) {
        int end = value.length();
        long maxChars = (long) maxBytes / 3 * 4;
        if (end - start > maxChars) {
            end = (int) (start + maxChars);
        }
        StringBuilder clean = new StringBuilder(Math.max(0, end - start));
        for (int i = start; i < end; i++) {
            char c = value.charAt(i);
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/'
                    || c == '-' || c == '_') {
                clean.append(c);
            }
        }
        clean.setLength(clean.length() / 4 * 4);
        try {
            String text = clean.toString().replace('-', '+').replace('_', '/');
            return Base64.getDecoder().decode(text);
        }
        catch (IllegalArgumentException ex) {
            return new byte[0];
        }
    }

    private static boolean startsWith(byte[] data, String prefix) {
        if (data.length < prefix.length()) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (data[i] != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Reads the pixel size from the first bytes of an image. */
    static final class ImageSize {

        private ImageSize() {
        }

        /**
         * The width and height, or {@code null} when the format or its header is not
         * known.
         */
        static long @org.jspecify.annotations.Nullable [] of(byte[] b) {
            if (b.length >= 24 && (b[0] & 0xFF) == 0x89 && b[1] == 'P' && b[2] == 'N' && b[3] == 'G') {
                return new long[] { int32(b, 16), int32(b, 20) };
            }
            if (b.length >= 10 && b[0] == 'G' && b[1] == 'I' && b[2] == 'F') {
                return new long[] { uint16le(b, 6), uint16le(b, 8) };
            }
            if (b.length >= 30 && b[0] == 'R' && b[1] == 'I' && b[2] == 'F' && b[3] == 'F' && b[8] == 'W' && b[9] == 'E'
                    && b[10] == 'B' && b[11] == 'P') {
                return webp(b);
            }
            if (b.length >= 4 && (b[0] & 0xFF) == 0xFF && (b[1] & 0xFF) == 0xD8) {
                return jpeg(b);
            }
            return null;
        }

        private static long @org.jspecify.annotations.Nullable [] webp(byte[] b) {
            if (b[12] == 'V' && b[13] == 'P' && b[14] == '8' && b[15] == ' ') {
                return new long[] { uint16le(b, 26) & 0x3FFF, uint16le(b, 28) & 0x3FFF };
            }
            if (b[12] == 'V' && b[13] == 'P' && b[14] == '8' && b[15] == 'L' && b.length >= 25) {
                long bits = (b[21] & 0xFFL) | (b[22] & 0xFFL) << 8 | (b[23] & 0xFFL) << 16 | (b[24] & 0xFFL) << 24;
                return new long[] { (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1 };
            }
            if (b[12] == 'V' && b[13] == 'P' && b[14] == '8' && b[15] == 'X') {
                return new long[] { uint24le(b, 24) + 1, uint24le(b, 27) + 1 };
            }
            return null;
        }

        private static long @org.jspecify.annotations.Nullable [] jpeg(byte[] b) {
            int i = 2;
            while (i + 9 < b.length) {
                if ((b[i] & 0xFF) != 0xFF) {
                    return null;
                }
                int marker = b[i + 1] & 0xFF;
                if (marker == 0xD8 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7) || marker == 0xFF) {
                    i += (marker == 0xFF) ? 1 : 2;
                    continue;
                }
                int length = ((b[i + 2] & 0xFF) << 8) | (b[i + 3] & 0xFF);
                boolean frame = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
                if (frame) {
                    long height = ((b[i + 5] & 0xFF) << 8) | (b[i + 6] & 0xFF);
                    long width = ((b[i + 7] & 0xFF) << 8) | (b[i + 8] & 0xFF);
                    return new long[] { width, height };
                }
                i += 2 + length;
            }
            return null;
        }

        private static long int32(byte[] b, int at) {
            return ((b[at] & 0xFFL) << 24) | ((b[at + 1] & 0xFFL) << 16) | ((b[at + 2] & 0xFFL) << 8)
                    | (b[at + 3] & 0xFFL);
        }

        private static long uint16le(byte[] b, int at) {
            return (b[at] & 0xFF) | ((b[at + 1] & 0xFF) << 8);
        }

        private static long uint24le(byte[] b, int at) {
            return (b[at] & 0xFFL) | ((b[at + 1] & 0xFFL) << 8) | ((b[at + 2] & 0xFFL) << 16);
        }

    }

}

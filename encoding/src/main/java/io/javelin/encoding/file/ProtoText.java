package io.javelin.encoding.file;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.ProtocolMessageEnum;
import java.util.List;
import java.util.Map;

/** Compact one-line rendering of encoding protobufs: {@code name(field=value, …)}, bytes as sizes. */
public final class ProtoText {

    private ProtoText() {
    }

    public static String describe(Message m) {
        StringBuilder sb = new StringBuilder();
        append(sb, m);
        return sb.toString();
    }

    private static void append(StringBuilder sb, Message m) {
        Map<FieldDescriptor, Object> fields = m.getAllFields();
        // A message with a single oneof holding a message (PageLayout, CompressiveEncoding, ArrayEncoding) prints as its case.
        if (fields.size() == 1) {
            var e = fields.entrySet().iterator().next();
            if (e.getKey().getContainingOneof() != null && e.getValue() instanceof Message inner) {
                sb.append(e.getKey().getName()).append('(');
                appendFields(sb, inner);
                sb.append(')');
                return;
            }
        }
        appendFields(sb, m);
    }

    private static void appendFields(StringBuilder sb, Message m) {
        boolean first = true;
        for (var e : m.getAllFields().entrySet()) {
            if (!first) {
                sb.append(", ");
            }
            first = false;
            sb.append(e.getKey().getName()).append('=');
            appendValue(sb, e.getValue());
        }
    }

    private static void appendValue(StringBuilder sb, Object v) {
        if (v instanceof List<?> l) {
            sb.append('[');
            for (int i = 0; i < l.size(); i++) {
                if (i > 0) {
                    sb.append(", ");
                }
                appendValue(sb, l.get(i));
            }
            sb.append(']');
        } else if (v instanceof Message msg) {
            if (msg.getAllFields().isEmpty()) {
                sb.append("{}");
            } else {
                append(sb, msg);
            }
        } else if (v instanceof ByteString bs) {
            sb.append('<').append(bs.size()).append(" bytes>");
        } else if (v instanceof com.google.protobuf.Descriptors.EnumValueDescriptor ev) {
            sb.append(ev.getName());
        } else if (v instanceof ProtocolMessageEnum pe) {
            sb.append(pe.getValueDescriptor().getName());
        } else {
            sb.append(v);
        }
    }
}

package io.javelin.encoding.file;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.UnsupportedEncodingException;
import io.javelin.encoding.pb.Encoding;
import io.javelin.encoding.pb.v20.ArrayEncoding;
import io.javelin.encoding.pb.v20.ColumnEncoding;
import io.javelin.encoding.pb.v21.PageLayout;

/** Unwraps {@code Encoding → DirectEncoding → google.protobuf.Any} into the page or column message. */
public final class PageEncodings {

    private PageEncodings() {
    }

    static Any any(String resource, long at, Encoding e) {
        if (e.getLocationCase() == Encoding.LocationCase.INDIRECT) {
            throw new UnsupportedEncodingException(resource, at, "Indirect (deferred) encodings are not supported");
        }
        if (e.getLocationCase() != Encoding.LocationCase.DIRECT) {
            return null;
        }
        try {
            return Any.parseFrom(e.getDirect().getEncoding());
        } catch (InvalidProtocolBufferException ex) {
            throw new CorruptFileException(resource, at, "Bad encoding Any protobuf: " + ex.getMessage(), ex);
        }
    }

    /** The 2.1+ page layout. */
    public static PageLayout pageLayout(String resource, long at, Encoding e) {
        Any any = any(resource, at, e);
        if (any == null) {
            throw new CorruptFileException(resource, at, "Page without an encoding");
        }
        if (!any.getTypeUrl().endsWith("lance.encodings21.PageLayout")) {
            throw new CorruptFileException(resource, at, "Page encoding type " + any.getTypeUrl() + " vs expected PageLayout");
        }
        try {
            return PageLayout.parseFrom(any.getValue());
        } catch (InvalidProtocolBufferException ex) {
            throw new CorruptFileException(resource, at, "Bad PageLayout protobuf: " + ex.getMessage(), ex);
        }
    }

    /** The 2.0 page array encoding. */
    public static ArrayEncoding arrayEncoding(String resource, long at, Encoding e) {
        Any any = any(resource, at, e);
        if (any == null) {
            throw new CorruptFileException(resource, at, "Page without an encoding");
        }
        if (!any.getTypeUrl().endsWith("lance.encodings.ArrayEncoding")) {
            throw new CorruptFileException(resource, at, "Page encoding type " + any.getTypeUrl() + " vs expected ArrayEncoding");
        }
        try {
            return ArrayEncoding.parseFrom(any.getValue());
        } catch (InvalidProtocolBufferException ex) {
            throw new CorruptFileException(resource, at, "Bad ArrayEncoding protobuf: " + ex.getMessage(), ex);
        }
    }

    /** The column encoding, or null when absent. */
    public static ColumnEncoding columnEncoding(String resource, long at, Encoding e) {
        Any any = any(resource, at, e);
        if (any == null) {
            return null;
        }
        try {
            return ColumnEncoding.parseFrom(any.getValue());
        } catch (InvalidProtocolBufferException ex) {
            throw new CorruptFileException(resource, at, "Bad ColumnEncoding protobuf: " + ex.getMessage(), ex);
        }
    }

    /** Decoded page message for display, whatever the version. */
    public static Message pageMessage(String resource, long at, Encoding e, LanceFileVersion v) {
        return v.structural() ? pageLayout(resource, at, e) : arrayEncoding(resource, at, e);
    }
}

package org.apache.storm;

import java.util.Map;

/** A spout or bolt that wants to hear when the topology's credentials are updated. */
public interface ICredentialsListener {
    /** Called with the new credentials (name to value). */
    void setCredentials(Map<String, String> credentials);
}

-- RFC 6749 §4.1.3: the token request must repeat redirect_uri only when the authorization
-- request named one. A code keeps the URI its request named, or null when the request named
-- none (the app's only registered URI was used), so the token request may then omit it.
ALTER TABLE "oauth_codes" ALTER COLUMN "redirect_uri" DROP NOT NULL;

/** The settings pages' own navigation: each settings page the console routes. */
import { NavLink } from 'react-router';

export function SettingsNav() {
  return (
    <nav aria-label="Settings" className="row settings-nav">
      <NavLink to="/settings/connections">Connections</NavLink>
      <NavLink to="/settings/packs">Integration packs</NavLink>
      <NavLink to="/settings/policy">Response policy</NavLink>
      <NavLink to="/settings/webhook-sources">Webhook sources</NavLink>
      <NavLink to="/settings/custom-actions">Custom actions</NavLink>
      <NavLink to="/settings/custom-fields">Custom fields</NavLink>
      <NavLink to="/settings/audit">Audit log</NavLink>
      <NavLink to="/settings/retention">Retention</NavLink>
      <NavLink to="/settings/ai">AI</NavLink>
    </nav>
  );
}

/** The settings pages' own navigation: each settings page the console routes. */
import { NavLink } from 'react-router';

export function SettingsNav() {
  return (
    <nav aria-label="Settings" className="row settings-nav">
      <NavLink to="/settings/connections">Connections</NavLink>
      <NavLink to="/settings/packs">Integration packs</NavLink>
      <NavLink to="/settings/policy">Response policy</NavLink>
    </nav>
  );
}

// Every resource module's routes, served under /api.
import usersRoutes from './users/users.routes.js'

export const resourceRoutes = [usersRoutes]
